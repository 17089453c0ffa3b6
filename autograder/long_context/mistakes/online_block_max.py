# names: the new maximum should be the larger of the old one and the block's
# The block's own maximum taken as the new one, as if the earlier keys were forgotten.
# %% online_step
def online_step(m, l, acc, s, v):
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = s.max(axis=1)
    scale = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None])
    return m_new, scale * l + p.sum(axis=1), scale[:, None] * acc + p @ v
