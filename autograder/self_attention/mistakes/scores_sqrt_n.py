# names: scaled by sqrt(number of queries)
# %% scaled_scores
def scaled_scores(Q, K):
    """Takes the wrong entry of the shape: sqrt(number of queries) instead of sqrt(d_k)."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return Q @ K.T / np.sqrt(Q.shape[0])
