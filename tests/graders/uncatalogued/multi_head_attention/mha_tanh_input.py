# relation: transformed input: ref(tanh(X), ...) -- the tokens squashed by a tanh before the layer
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """Bounds the inputs first with a tanh "for stability"."""
    X = np.tanh(np.asarray(X, dtype=float))
    Q = split_heads(X @ W_q, n_heads)
    K = split_heads(X @ W_k, n_heads)
    V = split_heads(X @ W_v, n_heads)
    mask = causal_mask(X.shape[0]) if causal else None
    heads, weights = attention(Q, K, V, mask)
    return merge_heads(heads) @ W_o, weights
