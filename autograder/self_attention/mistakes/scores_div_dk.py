# names: divided by d_k instead of sqrt(d_k)
# %% scaled_scores
def scaled_scores(Q, K):
    """Divides by the variance d_k instead of the standard deviation sqrt(d_k)."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return Q @ K.T / K.shape[1]
