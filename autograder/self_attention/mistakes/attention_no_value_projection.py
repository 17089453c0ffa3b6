# names: no value projection
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Mixes the raw input rows: V is never projected with W_v."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1)
    return weighted_sum(weights, np.asarray(X, dtype=float)), weights
