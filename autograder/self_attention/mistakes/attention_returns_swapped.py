# names: returned (weights, output) instead of (output, weights)
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1)
    return weights, weighted_sum(weights, V)
