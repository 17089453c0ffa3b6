# relation: fitted input: S = ref(x ln 2) -- 2 ** x instead of exp(x), "the same thing, in bits"
# %% softmax
def softmax(x, axis=-1):
    """Powers of two instead of exponentials."""
    x = np.asarray(x, dtype=float)
    e = 2.0 ** (x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
