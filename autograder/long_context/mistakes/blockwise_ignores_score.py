# names: ignored the score function passed in
# breaks: test_blockwise_score
# The lecture's scores computed in place of the function passed in: right for scaled_dot only.
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        s = Q @ K[start:start + block].T / np.sqrt(K.shape[1])
        m, l, acc = online_step(m, l, acc, s, V[start:start + block])
    return acc / l[:, None]
