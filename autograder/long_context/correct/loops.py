# Right answers written with plain Python loops, lists and math.exp: no array operation but the inputs' indexing.
# %% window_mask
def window_mask(n, w=None):
    rows = []
    for i in range(n):
        first = 0 if w is None else max(0, i - w + 1)
        rows.append([first <= j <= i for j in range(n)])
    return np.array(rows, dtype=bool)
# %% window_attention
def window_attention(Q, K, V, w=None):
    import math
    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)
    n, d_k = Q.shape
    mask = window_mask(n, w)
    out = []
    for i in range(n):
        keys = [j for j in range(n) if mask[i][j]]
        scores = [sum(Q[i][t] * K[j][t] for t in range(d_k)) / math.sqrt(d_k) for j in keys]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        out.append([sum(e * V[j][c] for e, j in zip(exps, keys)) / total for c in range(V.shape[1])])
    return out
# %% online_step
def online_step(m, l, acc, s, v):
    import math
    m_out, l_out, acc_out = [], [], []
    for row in range(len(s)):
        new_max = max([float(m[row])] + [float(x) for x in s[row]])
        factor = math.exp(float(m[row]) - new_max)
        terms = [math.exp(float(x) - new_max) for x in s[row]]
        m_out.append(new_max)
        l_out.append(factor * float(l[row]) + sum(terms))
        acc_out.append([factor * float(acc[row][c]) + sum(t * float(v[j][c]) for j, t in enumerate(terms))
                        for c in range(len(acc[row]))])
    return m_out, l_out, acc_out
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    n_q, d_v = len(Q), len(V[0])
    m, l, acc = [float("-inf")] * n_q, [0.0] * n_q, [[0.0] * d_v for _ in range(n_q)]
    start = 0
    while start < len(K):
        stop = min(start + block, len(K))
        m, l, acc = online_step(m, l, acc, score(Q, K[start:stop]), V[start:stop])
        start = stop
    return [[a / l[i] for a in acc[i]] for i in range(n_q)]
