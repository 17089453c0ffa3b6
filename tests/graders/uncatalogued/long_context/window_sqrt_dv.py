# relation: fitted input: S = the right function for sqrt(d_k/d_v)·Q -- the scores divided by sqrt(d_v), the other width
# %% window_attention
def window_attention(Q, K, V, w=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    s = np.where(window_mask(len(Q), w), Q @ K.T / np.sqrt(V.shape[1]), -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ V
