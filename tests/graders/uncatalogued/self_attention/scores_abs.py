# relation: elementwise: S = |R| -- the concept card's "similarity": how aligned, whatever the sign
# %% scaled_scores
def scaled_scores(Q, K):
    """The size of the match counts, not its sign."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return np.abs(Q @ K.T) / np.sqrt(K.shape[1])
