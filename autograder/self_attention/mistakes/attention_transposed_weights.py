# names: transposed the weights
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Transposes the weights, thinking column j should belong to query j."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1).T
    return weighted_sum(weights, V), weights
