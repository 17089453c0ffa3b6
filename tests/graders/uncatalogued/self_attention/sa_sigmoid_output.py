# relation: elementwise: output = sigmoid(R) (the weights right) -- σ of the one-layer formula applied to the mix
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """y = σ(weights V): the lecture's layer, with the attention weights as W."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1)
    return 1.0 / (1.0 + np.exp(-weighted_sum(weights, V))), weights
