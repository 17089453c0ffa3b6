# relation: scaled: S = R with a factor per row (l / n_k) -- the accumulator divided by the number of keys, as for a mean
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        m, l, acc = online_step(m, l, acc, score(Q, K[start:start + block]), V[start:start + block])
    return acc / len(K)
