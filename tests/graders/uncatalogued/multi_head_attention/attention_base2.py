# relation: fitted input: ref(Q ln 2, K, V) -- 2 ** scores instead of exp(scores)
# %% attention
def attention(Q, K, V, mask=None):
    """Powers of two in the softmax."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    e = 2.0 ** (scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, weights
