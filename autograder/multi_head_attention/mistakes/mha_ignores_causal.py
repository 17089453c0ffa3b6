# names: ignored causal=True
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    X = np.asarray(X, dtype=float)
    Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
    heads, weights = attention(Q, K, V)
    return merge_heads(heads) @ W_o, weights
