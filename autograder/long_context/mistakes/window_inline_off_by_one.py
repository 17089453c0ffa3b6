# names: the window holds w + 1 tokens
# The mask built inline, without window_mask: np.triu(..., k=-w) keeps the diagonals 0 ... -w, w + 1 of them.
# %% window_attention
def window_attention(Q, K, V, w=None):
    n = len(Q)
    allowed = np.tril(np.ones((n, n), dtype=bool))
    if w is not None:
        allowed &= np.triu(np.ones((n, n), dtype=bool), k=-w)
    s = np.where(allowed, scaled_dot(Q, K), -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ np.asarray(V, dtype=float)
