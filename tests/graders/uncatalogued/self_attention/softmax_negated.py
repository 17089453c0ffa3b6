# relation: changed input: S = ref(-x) -- the shift written max - x instead of x - max
# %% softmax
def softmax(x, axis=-1):
    """Subtracts in the wrong order: exp(max - x), so the largest score gets the smallest weight."""
    x = np.asarray(x, dtype=float)
    e = np.exp(np.max(x, axis=axis, keepdims=True) - x)
    return e / np.sum(e, axis=axis, keepdims=True)
