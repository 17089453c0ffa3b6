# relation: independent: the mask does not depend on n -- it is sized from the notebook's global X
# %% causal_mask
def causal_mask(n):
    """Sizes the mask from the notebook's X instead of the argument n."""
    return np.tril(np.ones((len(X), len(X)), dtype=bool))
