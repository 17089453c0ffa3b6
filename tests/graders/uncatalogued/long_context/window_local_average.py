# relation: fitted input: S = the right function for 0·Q -- "attention is a local average": every key in the window weighs the same
# %% window_attention
def window_attention(Q, K, V, w=None):
    """The lecture's misconception that attention is local: each token averages its window."""
    allowed = window_mask(len(Q), w).astype(float)
    return (allowed / allowed.sum(axis=1, keepdims=True)) @ np.asarray(V, dtype=float)
