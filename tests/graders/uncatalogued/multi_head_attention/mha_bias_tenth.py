# relation: shift: output = R + 0.1 (the weights right) -- an output bias b = 0.1 the layer does not have
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """The output projection as a full layer, W_o x + b, with b = 0.1."""
    X = np.asarray(X, dtype=float)
    Q = split_heads(X @ W_q, n_heads)
    K = split_heads(X @ W_k, n_heads)
    V = split_heads(X @ W_v, n_heads)
    mask = causal_mask(X.shape[0]) if causal else None
    heads, weights = attention(Q, K, V, mask)
    return merge_heads(heads) @ W_o + 0.1, weights
