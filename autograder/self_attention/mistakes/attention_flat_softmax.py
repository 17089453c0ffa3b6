# names: one softmax over the whole score table
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Normalises the whole table at once: the weights of all queries together sum to 1."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    scores = scaled_scores(Q, K)
    weights = softmax(scores.reshape(-1)).reshape(scores.shape)
    return weighted_sum(weights, V), weights
