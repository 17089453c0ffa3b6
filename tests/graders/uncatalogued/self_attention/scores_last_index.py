# relation: factor: S = R sqrt(d_k) / sqrt(d_k - 1) -- d_k taken as the last index of a key, K.shape[1] - 1 (off by one)
# %% scaled_scores
def scaled_scores(Q, K):
    """Reads d_k as the last index of a key."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    d_k = K.shape[1] - 1
    return Q @ K.T / np.sqrt(max(d_k, 1))
