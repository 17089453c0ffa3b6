# relation: order: head i gets head i + 1's columns (the heads rolled by one) -- an off-by-one in the head index
# %% split_heads
def split_heads(X, n_heads):
    """Counts the heads from 1: head i takes the block (i + 1) % n_heads."""
    X = np.asarray(X, dtype=float)
    n, width = X.shape
    d = width // n_heads
    return np.stack([X[:, ((i + 1) % n_heads) * d:((i + 1) % n_heads + 1) * d] for i in range(n_heads)])
