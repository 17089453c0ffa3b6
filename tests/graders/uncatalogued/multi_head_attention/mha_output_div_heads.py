# relation: factor: output = R / n_heads (the weights right) -- "averages" the heads after the output projection
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """Divides by the number of heads, thinking the heads' contributions must be averaged."""
    X = np.asarray(X, dtype=float)
    Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
    mask = causal_mask(X.shape[0]) if causal else None
    heads, weights = attention(Q, K, V, mask)
    return merge_heads(heads) @ W_o / n_heads, weights
