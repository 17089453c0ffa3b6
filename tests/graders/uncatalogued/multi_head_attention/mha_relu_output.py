# relation: elementwise: output = relu(R) (the weights right) -- the feed-forward layer's ReLU folded into the attention layer
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """Ends with a ReLU, "as a Transformer block does"."""
    X = np.asarray(X, dtype=float)
    Q = split_heads(X @ W_q, n_heads)
    K = split_heads(X @ W_k, n_heads)
    V = split_heads(X @ W_v, n_heads)
    mask = causal_mask(X.shape[0]) if causal else None
    heads, weights = attention(Q, K, V, mask)
    return np.maximum(merge_heads(heads) @ W_o, 0.0), weights
