# relation: scaled: s_ij = R_ij / (|q_i| |k_j|) (queries and keys normalised before the dot product), then the softmax
# %% attention
def attention(Q, K, V, mask=None):
    """Cosine attention: every query and key normalised to length 1 before the dot product."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    Q = Q / np.linalg.norm(Q, axis=-1, keepdims=True)
    K = K / np.linalg.norm(K, axis=-1, keepdims=True)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, weights
