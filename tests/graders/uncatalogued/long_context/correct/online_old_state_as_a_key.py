# correct: the old state folded in as one more key, of score m + log(l) and value acc / l, then a plain softmax over the block
# %% online_step
def online_step(m, l, acc, s, v):
    m, l, acc = np.asarray(m, dtype=float), np.asarray(l, dtype=float), np.asarray(acc, dtype=float)
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    seen = l > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        old_score = np.where(seen, m + np.log(np.where(seen, l, 1.0)), -np.inf)
        old_value = np.where(seen[:, None], acc / np.where(seen, l, 1.0)[:, None], 0.0)
    scores = np.concatenate([old_score[:, None], s], axis=1)           # (n_q, 1 + b)
    m_new = np.maximum(m, s.max(axis=1))                               # the same reference point as the lecture's
    p = np.exp(scores - m_new[:, None])
    l_new = p.sum(axis=1)
    acc_new = p[:, :1] * old_value + p[:, 1:] @ v
    return m_new, l_new, acc_new
