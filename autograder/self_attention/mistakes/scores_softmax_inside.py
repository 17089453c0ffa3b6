# names: applied the softmax inside scaled_scores
# %% scaled_scores
def scaled_scores(Q, K):
    """Goes one step too far and returns weights instead of scores."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    s = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
