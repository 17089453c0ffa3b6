# names: softmax along the wrong axis
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Normalises each column of the score table instead of each row."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=0)
    return weighted_sum(weights, V), weights
