# relation: fitted input: l and acc = the right function for ln 2·s and ln 2·m -- FlashAttention-2's exp2 copied without its log2(e)
# %% online_step
def online_step(m, l, acc, s, v):
    m, l, acc = np.asarray(m, dtype=float), np.asarray(l, dtype=float), np.asarray(acc, dtype=float)
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = np.maximum(m, s.max(axis=1))
    scale = np.exp2(m - m_new)
    p = np.exp2(s - m_new[:, None])
    return m_new, scale * l + p.sum(axis=1), scale[:, None] * acc + p @ v
