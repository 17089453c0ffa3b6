# relation: precision: S = R to a few digits -- each block's scores stored in FP16 "to save the memory the exercise is about"
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        s = np.asarray(score(Q, K[start:start + block])).astype(np.float16)
        m, l, acc = online_step(m, l, acc, s.astype(float), V[start:start + block])
    return acc / l[:, None]
