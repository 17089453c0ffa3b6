# names: scaled by sqrt(n), the number of tokens
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Takes the wrong entry of the shape: sqrt(number of tokens) instead of sqrt(d_k)."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(Q @ K.T / np.sqrt(Q.shape[0]), axis=-1)
    return weighted_sum(weights, V), weights
