# relation: none: len(K) // block + 1 blocks: when block divides n_k the last one is empty and max() raises; right otherwise
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for b in range(len(K) // block + 1):
        keys = slice(b * block, (b + 1) * block)
        m, l, acc = online_step(m, l, acc, score(Q, K[keys]), V[keys])
    return acc / l[:, None]
