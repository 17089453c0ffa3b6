# relation: where: weights 0 off the band |i - j| <= 1, renormalised on it -- the concept card's misconception that attention is local
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Each token attends to itself and its two neighbours only, "as a convolution does"."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    scores = scaled_scores(Q, K)
    n = scores.shape[0]
    near = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]) <= 1
    weights = softmax(np.where(near, scores, -np.inf), axis=-1)
    return weighted_sum(weights, V), weights
