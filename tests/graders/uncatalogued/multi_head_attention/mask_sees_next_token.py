# relation: where: the mask plus its first superdiagonal (tril with k=1: each token also sees the next one)
# %% causal_mask
def causal_mask(n):
    """Off by one in the diagonal offset."""
    return np.tril(np.ones((n, n), dtype=bool), k=1)
