# names: returned the scaled scores as the weights
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Mixes with the softmax weights but returns the scaled scores as "the weights"."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    scores = scaled_scores(Q, K)
    weights = softmax(scores, axis=-1)
    return weighted_sum(weights, V), scores
