# relation: scaled: acc = R with a factor per row (1 / l) -- the accumulator divided by the denominator at every step
# %% online_step
def online_step(m, l, acc, s, v):
    """"The output after this block": acc / l returned in place of acc."""
    m, l, acc = np.asarray(m, dtype=float), np.asarray(l, dtype=float), np.asarray(acc, dtype=float)
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = np.maximum(m, s.max(axis=1))
    scale = np.exp(m - m_new)
    p = np.exp(s - m_new[:, None])
    l_new = scale * l + p.sum(axis=1)
    return m_new, l_new, (scale[:, None] * acc + p @ v) / l_new[:, None]
