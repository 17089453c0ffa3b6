# names: forgot to rescale l and acc
# The new maximum is tracked, but the old sums are kept as they were, taken against the old maximum.
# %% online_step
def online_step(m, l, acc, s, v):
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = np.maximum(m, s.max(axis=1))
    p = np.exp(s - m_new[:, None])
    return m_new, l + p.sum(axis=1), acc + p @ v
