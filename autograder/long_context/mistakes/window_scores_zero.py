# names: set the forbidden scores to 0 instead of -inf
# The mask multiplied into the scores: a forbidden score becomes 0, which is an ordinary score.
# %% window_attention
def window_attention(Q, K, V, w=None):
    s = scaled_dot(Q, K) * window_mask(len(Q), w)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ np.asarray(V, dtype=float)
