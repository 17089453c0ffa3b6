# names: is the `axis` argument ignored?
# %% softmax
def softmax(x, axis=-1):
    """Always normalises along the last axis; the axis argument is never used."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)
