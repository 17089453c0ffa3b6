# relation: elementwise: S = max(R, 0.01) -- every weight kept at 1% at least, "so that no token is ignored"
# %% softmax
def softmax(x, axis=-1):
    """A floor on the weights (and no renormalising afterwards)."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return np.maximum(e / np.sum(e, axis=axis, keepdims=True), 0.01)
