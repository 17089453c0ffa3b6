# relation: none: the softmax taken down the columns (axis=0): each key's weights sum to 1 over the queries that see it
# %% window_attention
def window_attention(Q, K, V, w=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    s = np.where(window_mask(len(Q), w), scaled_dot(Q, K), -np.inf)
    e = np.exp(s - s.max(axis=0, keepdims=True))
    return (e / e.sum(axis=0, keepdims=True)) @ V
