# relation: elementwise: S = relu(R) -- "a negative similarity means no match": right where positive, 0 elsewhere
# %% scaled_scores
def scaled_scores(Q, K):
    """Clamps negative scores to 0: a key that points away from the query does not match at all."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return np.maximum(Q @ K.T / np.sqrt(K.shape[1]), 0.0)
