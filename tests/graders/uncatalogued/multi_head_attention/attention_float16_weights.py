# relation: precision: the weights (and so the output) kept in float16 -- right to about three digits
# %% attention
def attention(Q, K, V, mask=None):
    """Stores the weights in half precision "as a GPU kernel does"."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = (e / np.sum(e, axis=-1, keepdims=True)).astype(np.float16)
    return weights @ V.astype(np.float16), weights
