# names: every token got the same weight
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    """Averages all the values: the scores are computed but never used."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    scores = scaled_scores(Q, K)
    weights = np.ones_like(scores) / scores.shape[1]
    return weighted_sum(weights, V), weights
