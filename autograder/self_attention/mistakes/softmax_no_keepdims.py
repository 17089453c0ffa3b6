# names: keepdims
# %% softmax
def softmax(x, axis=-1):
    """Forgets keepdims: the sums broadcast against the wrong axis (or not at all)."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis)
