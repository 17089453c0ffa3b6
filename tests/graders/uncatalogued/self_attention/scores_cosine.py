# relation: scaled: S_ij = R_ij / (|q_i| |k_j|) -- queries and keys normalised before the dot product (cosine similarity)
# %% scaled_scores
def scaled_scores(Q, K):
    """Cosine similarity, scaled: normalises every query and key to length 1 first."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T / np.sqrt(K.shape[1])
