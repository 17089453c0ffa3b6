# relation: function: the heads in reverse order (R[::-1] along the head axis)
# %% split_heads
def split_heads(X, n_heads):
    """Builds the list of heads with insert(0, ...): the last head comes first."""
    X = np.asarray(X, dtype=float)
    d = X.shape[1] // n_heads
    heads = []
    for i in range(n_heads):
        heads.insert(0, X[:, i * d:(i + 1) * d])
    return np.array(heads)
