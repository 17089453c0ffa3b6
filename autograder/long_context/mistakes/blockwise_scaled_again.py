# names: divided the scores by sqrt(d_k) again
# The score function's result treated as raw dot products and scaled once more.
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        s = score(Q, K[start:start + block]) / np.sqrt(K.shape[1])
        m, l, acc = online_step(m, l, acc, s, V[start:start + block])
    return acc / l[:, None]
