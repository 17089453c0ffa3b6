# relation: precision: l and acc = R to about 3 digits -- the block's exponentials kept in FP16, as FlashAttention keeps its tiles
# %% online_step
def online_step(m, l, acc, s, v):
    m, l, acc = np.asarray(m, dtype=float), np.asarray(l, dtype=float), np.asarray(acc, dtype=float)
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = np.maximum(m, s.max(axis=1))
    scale = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None]).astype(np.float16)
    return m_new, scale * l + p.sum(axis=1), scale[:, None] * acc + p @ v.astype(np.float16)
