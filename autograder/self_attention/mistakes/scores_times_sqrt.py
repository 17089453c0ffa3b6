# names: multiplied by sqrt(d_k) instead of dividing
# %% scaled_scores
def scaled_scores(Q, K):
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return Q @ K.T * np.sqrt(K.shape[1])
