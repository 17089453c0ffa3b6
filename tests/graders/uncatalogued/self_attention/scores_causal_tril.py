# relation: where: S = R on and below the diagonal, 0 above it -- a decoder's mask applied to every score table
# %% scaled_scores
def scaled_scores(Q, K):
    """"A token must not look ahead": keeps only the lower triangle of the scores."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return np.tril(Q @ K.T / np.sqrt(K.shape[1]))
