# names: maximum of the whole array
# %% softmax
def softmax(x, axis=-1):
    """Subtracts the maximum of the whole array: rows far below it underflow to 0/0."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=axis, keepdims=True)
