# names: no scaling
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Computes its own scores instead of calling scaled_scores, and forgets the scaling."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(Q @ K.T, axis=-1)
    return weighted_sum(weights, V), weights
