# names: the running state was reset in every block
# The running state started inside the loop, so every block starts again from nothing.
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    for start in range(0, len(K), block):
        m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
        m, l, acc = online_step(m, l, acc, score(Q, K[start:start + block]), V[start:start + block])
    return acc / l[:, None]
