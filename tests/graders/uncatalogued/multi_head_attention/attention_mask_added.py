# relation: offset: softmax(scores + mask) -- the boolean mask added to the scores (True = +1) instead of masking with -inf
# %% attention
def attention(Q, K, V, mask=None):
    """Treats the mask as an additive bias."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores + mask
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, weights
