# relation: scaled: S = R with a factor per row -- the last block padded with zero keys to a whole tile, the padding not masked
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    """Every block the same size, as a GPU tile: K and V padded with zeros to a multiple of block."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    pad = -len(K) % block
    K = np.vstack([K, np.zeros((pad, K.shape[1]))])
    V = np.vstack([V, np.zeros((pad, V.shape[1]))])
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        m, l, acc = online_step(m, l, acc, score(Q, K[start:start + block]), V[start:start + block])
    return acc / l[:, None]
