# relation: function: weights = softmax(R) along the last axis (the output mixes with them) -- the weights normalised twice
# %% attention
def attention(Q, K, V, mask=None):
    """A second softmax over the weights "to be sure they sum to 1"."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    for _ in range(2):
        e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
        scores = e / np.sum(e, axis=-1, keepdims=True)
    return scores @ V, scores
