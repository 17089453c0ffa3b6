# relation: fitted input: ref(Q / 1.5, K, V) -- a temperature of 1.5 on the scores
# %% attention
def attention(Q, K, V, mask=None):
    """Smoother weights with a temperature T = 1.5."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / (1.5 * np.sqrt(K.shape[-1]))
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, weights
