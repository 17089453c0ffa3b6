# correct: the blocks folded from the last to the first, the running maximum started at 0 instead of -inf
# %% blockwise_attention
def blockwise_attention(Q, K, V, block, score):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = np.zeros(len(Q)), np.zeros(len(Q)), np.zeros((len(Q), V.shape[1]))
    starts = list(range(0, len(K), block))
    for start in reversed(starts):
        m, l, acc = online_step(m, l, acc, score(Q, K[start:start + block]), V[start:start + block])
    return acc / l[:, None]
