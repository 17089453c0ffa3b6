# correct: a loop over the queries, each attending with the setup's full_attention to its window's slice of K and V
# %% window_attention
def window_attention(Q, K, V, w=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    rows = []
    for i in range(len(Q)):
        first = 0 if w is None else max(0, i - w + 1)
        rows.append(full_attention(Q[i:i + 1], K[first:i + 1], V[first:i + 1])[0])
    return np.stack(rows)
