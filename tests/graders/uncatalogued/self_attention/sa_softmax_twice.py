# relation: function: weights = softmax(R) along each row (and the output mixes with them) -- the softmax applied twice
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Normalises the weights once more after the softmax."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(softmax(scaled_scores(Q, K), axis=-1), axis=-1)
    return weighted_sum(weights, V), weights
