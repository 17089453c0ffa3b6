# names: applied the mask after the softmax
# %% attention
def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    if mask is not None:
        weights = weights * mask          # zeroed, but not renormalised
    return weights @ V, weights
