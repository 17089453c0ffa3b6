# relation: elementwise: S = R² -- the dot products squared ("energies") and divided by d_k
# %% scaled_scores
def scaled_scores(Q, K):
    """Squares the dot products so that they are positive, and divides by d_k to match."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return (Q @ K.T) ** 2 / K.shape[1]
