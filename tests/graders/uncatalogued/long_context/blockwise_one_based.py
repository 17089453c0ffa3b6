# relation: changed input: S = the right function for K[1:] and V[1:] -- blocks counted from 1: key 0 is never visited
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    n_blocks = -(-len(K) // block)
    for b in range(1, n_blocks + 1):
        keys = slice((b - 1) * block + 1, b * block + 1)
        if len(K[keys]):
            m, l, acc = online_step(m, l, acc, score(Q, K[keys]), V[keys])
    return acc / l[:, None]
