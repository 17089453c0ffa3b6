# relation: fitted input: S = ref(x / 1.5) -- a softmax temperature of 1.5 left in
# %% softmax
def softmax(x, axis=-1):
    """Softmax with a temperature (from a sampling tutorial); T = 1.5 left in."""
    x = np.asarray(x, dtype=float) / 1.5
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
