# relation: factor: S = (2 / sqrt(d_k)) R -- `d_k ** 1/2` is d_k / 2, not sqrt(d_k) (operator precedence)
# %% scaled_scores
def scaled_scores(Q, K):
    """Writes the square root as a power, and Python reads ** 1/2 as (** 1) / 2."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    d_k = K.shape[1]
    return Q @ K.T / (d_k ** 1/2)
