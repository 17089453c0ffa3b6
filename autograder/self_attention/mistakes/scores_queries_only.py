# names: compared the queries with themselves
# %% scaled_scores
def scaled_scores(Q, K):
    """Typo: Q where K belongs."""
    Q = np.asarray(Q, dtype=float)
    return Q @ Q.T / np.sqrt(Q.shape[1])
