# Right answers by other routes: the mask from np.tri, masked after the softmax but renormalised, the state
# updated through np.logaddexp-free "merge two partial softmaxes" form, and blocks from np.array_split
# (blocks of equal sizes, none longer than `block`).
# %% window_mask
def window_mask(n, w=None):
    past = np.tri(n, dtype=bool)
    if w is None or w >= n:
        return past
    return past & ~np.tri(n, k=-w, dtype=bool)
# %% window_attention
def window_attention(Q, K, V, w=None):
    s = scaled_dot(Q, K)
    e = np.exp(s - s.max(axis=1, keepdims=True)) * window_mask(len(Q), w)
    return (e / e.sum(axis=1, keepdims=True)) @ np.asarray(V, dtype=float)
# %% online_step
def online_step(m, l, acc, s, v):
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_b = s.max(axis=1)                          # the block on its own: max, sum, weighted sum
    p = np.exp(s - m_b[:, None])
    l_b, acc_b = p.sum(axis=1), p @ v
    m_new = np.maximum(m, m_b)                   # then the two partial softmaxes merged
    old, new = np.exp(np.asarray(m, dtype=float) - m_new), np.exp(m_b - m_new)
    return m_new, old * l + new * l_b, old[:, None] * acc + new[:, None] * acc_b
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for keys in np.array_split(np.arange(len(K)), -(-len(K) // block)):
        m, l, acc = online_step(m, l, acc, score(Q, K[keys]), V[keys])
    return acc / l[:, None]
