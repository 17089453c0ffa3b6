# relation: input elementwise: weights = sigmoid(scores) (no normalisation) -- gates in place of a softmax
# %% attention
def attention(Q, K, V, mask=None):
    """Each key gets an independent gate in (0, 1), as in a GRU."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    weights = 1.0 / (1.0 + np.exp(-scores))
    if mask is not None:
        weights = np.where(np.asarray(mask, dtype=bool), weights, 0.0)
    return weights @ V, weights
