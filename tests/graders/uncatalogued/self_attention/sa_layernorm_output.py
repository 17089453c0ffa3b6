# relation: scaled: each output row = a R_row + b (a LayerNorm of the output; the weights right)
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Post-LN: each output row normalised to mean 0 and standard deviation 1."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1)
    out = weighted_sum(weights, V)
    return (out - out.mean(axis=1, keepdims=True)) / (out.std(axis=1, keepdims=True) + 1e-12), weights
