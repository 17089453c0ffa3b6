# relation: function: weights = Rᵀ (`.T`, which reverses every axis of a stack of heads); the output is right
# %% attention
def attention(Q, K, V, mask=None):
    """Returns the weights as (keys, queries) with .T -- on a stack of heads .T reverses all the axes."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, weights.T
