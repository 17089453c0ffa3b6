# names: computed K Qᵀ
# %% scaled_scores
def scaled_scores(Q, K):
    """K Q^T: rows are keys, columns queries -- the transpose of the table."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return K @ Q.T / np.sqrt(K.shape[1])
