# names: without taking exp
# %% softmax
def softmax(x, axis=-1):
    """Normalises the raw scores: x / sum(x)."""
    x = np.asarray(x, dtype=float)
    return x / np.sum(x, axis=axis, keepdims=True)
