# names: every block stops one key short
# The block's last index computed as an inclusive end, then used as a slice's (exclusive) end.
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.full(len(Q), -np.inf), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    for start in range(0, len(K), block):
        end = min(start + block - 1, len(K))
        m, l, acc = online_step(m, l, acc, score(Q, K[start:end]), V[start:end])
    return acc / l[:, None]
