# relation: elementwise: output = relu(R) (the weights right) -- the feed-forward layer's ReLU applied to the attention output
# %% attention
def attention(Q, K, V, mask=None):
    """Ends with max(0, ·), "as every layer does"."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return np.maximum(weights @ V, 0.0), weights
