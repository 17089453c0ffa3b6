# relation: none: right on ordinary scores; exp overflows on scores near 1000 (no maximum subtracted), one failed check only
# %% window_attention
def window_attention(Q, K, V, w=None):
    s = np.where(window_mask(len(Q), w), scaled_dot(Q, K), -np.inf)
    e = np.exp(s)
    return (e / e.sum(axis=1, keepdims=True)) @ np.asarray(V, dtype=float)
