# relation: changed input: the layer with n_heads = 1 (one wide head), its table repeated for every head
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """Never splits: one attention over the full width, its weights copied n_heads times for the shape."""
    X = np.asarray(X, dtype=float)
    mask = causal_mask(X.shape[0]) if causal else None
    out, w = attention(X @ W_q, X @ W_k, X @ W_v, mask)
    return out @ W_o, np.stack([w] * n_heads)
