# names: mixed with the transposed weights
# %% weighted_sum
def weighted_sum(weights, V):
    """Sums over the wrong index of the weights: weightsᵀ V."""
    return np.asarray(weights, dtype=float).T @ np.asarray(V, dtype=float)
