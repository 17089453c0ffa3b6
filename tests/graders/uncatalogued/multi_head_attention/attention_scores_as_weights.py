# relation: function: weights = log R + (a per-row constant), i.e. the scaled (masked) scores; the output is right
# %% attention
def attention(Q, K, V, mask=None):
    """Mixes with the softmax weights but returns the scaled scores as "the weights"."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, scores
