# names: set the masked scores to 0 instead of -inf
# %% attention
def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores * mask            # a masked score becomes 0, and exp(0) = 1
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ V, weights
