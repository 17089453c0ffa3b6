# names: over the whole array at once
# %% softmax
def softmax(x, axis=-1):
    """Normalises every element of the array together."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x))
    return e / e.sum()
