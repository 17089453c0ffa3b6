# relation: elementwise: S = tanh(R) -- the mixed values passed through a tanh, "the layer's activation"
# %% weighted_sum
def weighted_sum(weights, V):
    """Every layer ends in a nonlinearity, so this one does too."""
    return np.tanh(np.asarray(weights, dtype=float) @ np.asarray(V, dtype=float))
