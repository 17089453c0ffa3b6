# names: sqrt(d_model) instead of sqrt(d_k) of one head
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    # the scores written out, scaled by the width of the input
    X = np.asarray(X, dtype=float)
    Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(X.shape[1])
    if causal:
        scores = np.where(causal_mask(X.shape[0]), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ V) @ W_o, weights
