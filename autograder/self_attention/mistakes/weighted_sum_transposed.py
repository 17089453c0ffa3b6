# names: returned the transpose
# %% weighted_sum
def weighted_sum(weights, V):
    """Returns (weights @ V) transposed: d_v x n_q instead of n_q x d_v."""
    return np.asarray(V, dtype=float).T @ np.asarray(weights, dtype=float).T
