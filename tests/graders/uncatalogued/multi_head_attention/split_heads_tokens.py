# relation: none: splits the tokens (axis 0) instead of the features (fails unless n_heads divides n)
# %% split_heads
def split_heads(X, n_heads):
    """np.split along the wrong axis: groups of tokens instead of groups of columns."""
    X = np.asarray(X, dtype=float)
    return np.stack(np.split(X, n_heads, axis=0))
