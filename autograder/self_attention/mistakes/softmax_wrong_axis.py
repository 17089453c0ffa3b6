# names: normalised along axis 0 whatever `axis` says
# %% softmax
def softmax(x, axis=-1):
    """Normalises the columns (axis 0) whatever axis is asked for."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)
