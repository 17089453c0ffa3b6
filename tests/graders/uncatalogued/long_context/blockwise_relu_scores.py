# relation: transformed input: S = the right function with max(score, 0) -- the score function's output through a ReLU, "a layer" before the softmax
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        s = np.maximum(score(Q, K[start:start + block]), 0)
        m, l, acc = online_step(m, l, acc, s, V[start:start + block])
    return acc / l[:, None]
