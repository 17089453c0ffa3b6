# names: used a causal mask
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Adds a causal mask: fine for a decoder, but not what plain self-attention does."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    scores = scaled_scores(Q, K)
    n = scores.shape[0]
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weighted_sum(weights, V), weights
