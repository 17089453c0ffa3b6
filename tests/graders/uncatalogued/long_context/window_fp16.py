# relation: precision: S = R to about 3 digits -- everything in FP16, "as the lecture's memory table counts"
# %% window_attention
def window_attention(Q, K, V, w=None):
    Q, K, V = (np.asarray(a, dtype=np.float16) for a in (Q, K, V))
    s = (Q @ K.T) / np.float16(np.sqrt(K.shape[1]))
    s = np.where(window_mask(len(Q), w), s, np.float16(-np.inf))
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ V
