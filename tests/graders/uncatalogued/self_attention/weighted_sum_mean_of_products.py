# relation: factor: S = R / n_k -- np.mean over the keys instead of np.sum
# %% weighted_sum
def weighted_sum(weights, V):
    """Broadcasts weight times value and averages over the keys instead of summing them."""
    w = np.asarray(weights, dtype=float)
    V = np.asarray(V, dtype=float)
    return np.mean(w[:, :, None] * V[None, :, :], axis=1)
