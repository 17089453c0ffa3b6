# relation: none: a loop over queries slicing K[i - w + 1:i + 1]: a negative start wraps around, the slice is empty and max() raises
# %% window_attention
def window_attention(Q, K, V, w=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    n = len(Q)
    w = n if w is None else w
    out = []
    for i in range(n):
        keys, values = K[i - w + 1:i + 1], V[i - w + 1:i + 1]
        out.append(full_attention(Q[i:i + 1], keys, values)[0])
    return np.array(out)
