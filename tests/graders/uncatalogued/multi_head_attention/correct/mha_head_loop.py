# correct: one head at a time, each with its own slice of the weight matrices
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    d_k = W_q.shape[1] // n_heads
    d_v = W_v.shape[1] // n_heads
    mask = causal_mask(n) if causal else None
    outs, weights = [], []
    for i in range(n_heads):
        q = X @ W_q[:, i * d_k:(i + 1) * d_k]
        k = X @ W_k[:, i * d_k:(i + 1) * d_k]
        v = X @ W_v[:, i * d_v:(i + 1) * d_v]
        o, w = attention(q, k, v, mask)
        outs.append(o)
        weights.append(w)
    return np.concatenate(outs, axis=1) @ W_o, np.stack(weights)
