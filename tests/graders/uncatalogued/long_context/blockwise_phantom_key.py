# relation: scaled: S = R with a factor per row -- the running state started at m = 0, l = 1, as if a key of score 0 and value 0 had been seen
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    """"Start from zeros, but l = 1 so that nothing divides by zero"."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.zeros(len(Q)), np.ones(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        m, l, acc = online_step(m, l, acc, score(Q, K[start:start + block]), V[start:start + block])
    return acc / l[:, None]
