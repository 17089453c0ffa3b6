# relation: input elementwise: the new m = the input m -- the new maximum computed and used, but the old one returned
# %% online_step
def online_step(m, l, acc, s, v):
    m, l, acc = np.asarray(m, dtype=float), np.asarray(l, dtype=float), np.asarray(acc, dtype=float)
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = np.maximum(m, s.max(axis=1))
    scale = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None])
    return m, scale * l + p.sum(axis=1), scale[:, None] * acc + p @ v
