# names: must also see itself
# %% causal_mask
def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool), k=-1)
