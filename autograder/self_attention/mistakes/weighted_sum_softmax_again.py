# names: applied a softmax to the weights
# %% weighted_sum
def weighted_sum(weights, V):
    """Normalises the weights with a softmax once more."""
    w = np.asarray(weights, dtype=float)
    e = np.exp(w - w.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ np.asarray(V, dtype=float)
