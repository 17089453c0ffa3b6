# names: W_q was used for the keys too
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """One projection for queries and keys: compares each query with the other queries."""
    Q, K, V = project_qkv(X, W_q, W_q, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1)
    return weighted_sum(weights, V), weights
