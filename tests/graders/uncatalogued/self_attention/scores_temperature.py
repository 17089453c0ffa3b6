# relation: factor: S = R / 2 -- a softmax temperature of 2 folded into the scores (1 / (2 sqrt(d_k)))
# %% scaled_scores
def scaled_scores(Q, K):
    """Adds a temperature, "to make the weights smoother"."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    temperature = 2.0
    return Q @ K.T / (temperature * np.sqrt(K.shape[1]))
