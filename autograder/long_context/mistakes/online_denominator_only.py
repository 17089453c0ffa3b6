# names: rescaled the denominator l but not the accumulator acc
# %% online_step
def online_step(m, l, acc, s, v):
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = np.maximum(m, s.max(axis=1))
    p = np.exp(s - m_new[:, None])
    l_new = np.exp(m - m_new) * l + p.sum(axis=1)
    acc_new = acc + p @ v
    return m_new, l_new, acc_new
