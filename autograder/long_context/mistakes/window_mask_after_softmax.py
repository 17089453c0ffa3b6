# names: applied the mask after the softmax
# The weights of the forbidden keys zeroed after the softmax, and the rows not renormalised.
# %% window_attention
def window_attention(Q, K, V, w=None):
    s = scaled_dot(Q, K)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return (weights * window_mask(len(Q), w)) @ np.asarray(V, dtype=float)
