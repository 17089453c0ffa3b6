# relation: elementwise: S = max(R, 0) -- the lecture's one layer y = σ(Wx + b), its ReLU put after the attention
# %% window_attention
def window_attention(Q, K, V, w=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    s = np.where(window_mask(len(Q), w), scaled_dot(Q, K), -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return np.maximum((e / e.sum(axis=1, keepdims=True)) @ V, 0)
