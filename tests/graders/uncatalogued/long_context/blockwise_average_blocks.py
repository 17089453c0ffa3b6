# relation: none: each block's own attention, then the blocks' outputs averaged -- "combine the blocks" read as a mean
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    outputs = []
    for start in range(0, len(K), block):
        m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
        m, l, acc = online_step(m, l, acc, score(Q, K[start:start + block]), V[start:start + block])
        outputs.append(acc / l[:, None])
    return np.mean(outputs, axis=0)
