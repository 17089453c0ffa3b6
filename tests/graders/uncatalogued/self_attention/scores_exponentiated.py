# relation: function: S = exp(R) -- the scores exponentiated, as if they were unnormalised weights
# %% scaled_scores
def scaled_scores(Q, K):
    """Returns exp(scores): "the softmax's numerator", a step too early."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return np.exp(Q @ K.T / np.sqrt(K.shape[1]))
