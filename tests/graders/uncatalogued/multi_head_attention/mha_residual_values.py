# relation: offset: output = R + (X W_v) W_o (the weights right) -- each head's values added back ("a residual") before merging
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """Adds a residual connection inside every head: its values are added to its attention output."""
    X = np.asarray(X, dtype=float)
    Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
    mask = causal_mask(X.shape[0]) if causal else None
    heads, weights = attention(Q, K, V, mask)
    return merge_heads(heads + V) @ W_o, weights
