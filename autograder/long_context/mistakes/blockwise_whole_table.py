# names: scored all the keys at once
# breaks: test_blockwise_score
# The right numbers, but the whole n_q × n_k table is built first and only then walked through in blocks.
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    table = score(Q, K)
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        m, l, acc = online_step(m, l, acc, table[:, start:start + block], V[start:start + block])
    return acc / l[:, None]
