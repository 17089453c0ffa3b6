# names: the wrong triangle
# %% causal_mask
def causal_mask(n):
    # lets every token see the tokens after it
    return np.triu(np.ones((n, n), dtype=bool))
