# relation: where: the last head's weights are 0 (the other heads right) -- the loop over the heads stops one short
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """A loop over the heads, range(n_heads - 1); the last head's slots keep their zeros."""
    X = np.asarray(X, dtype=float)
    Q = split_heads(X @ W_q, n_heads)
    K = split_heads(X @ W_k, n_heads)
    V = split_heads(X @ W_v, n_heads)
    n = X.shape[0]
    mask = causal_mask(n) if causal else None
    heads = np.zeros((n_heads, n, V.shape[2]))
    weights = np.zeros((n_heads, n, n))
    for i in range(n_heads - 1):
        heads[i], weights[i] = attention(Q[i], K[i], V[i], mask)
    return merge_heads(heads) @ W_o, weights
