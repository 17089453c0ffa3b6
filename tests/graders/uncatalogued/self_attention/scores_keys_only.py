# relation: independent: the output does not depend on Q (K Kᵀ / sqrt(d_k); shape (n_k, n_k))
# %% scaled_scores
def scaled_scores(Q, K):
    """Typo: K where Q belongs -- the keys are compared with themselves."""
    K = np.asarray(K, dtype=float)
    return K @ K.T / np.sqrt(K.shape[1])
