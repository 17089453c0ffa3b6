# relation: offset: output = R + V (V = X W_v, weights right) -- a "residual" that adds the values back
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Adds a residual connection: the values are added back to the attention output."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1)
    return weighted_sum(weights, V) + V, weights
