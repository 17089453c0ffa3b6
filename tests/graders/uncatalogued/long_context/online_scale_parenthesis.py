# relation: where: l and acc = R in the rows whose maximum did not grow -- the block's terms put inside the rescaling's parentheses
# %% online_step
def online_step(m, l, acc, s, v):
    m, l, acc = np.asarray(m, dtype=float), np.asarray(l, dtype=float), np.asarray(acc, dtype=float)
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = np.maximum(m, s.max(axis=1))
    scale = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None])
    return m_new, scale * (l + p.sum(axis=1)), scale[:, None] * (acc + p @ v)
