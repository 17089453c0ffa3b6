# names: took the block's exponentials against the old maximum
# The block's terms computed before the maximum is updated.
# %% online_step
def online_step(m, l, acc, s, v):
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    p = np.exp(s - np.asarray(m, dtype=float)[:, None])
    m_new = np.maximum(m, s.max(axis=1))
    scale = np.exp(m - m_new)
    return m_new, scale * l + p.sum(axis=1), scale[:, None] * acc + p @ v
