# relation: composition: S = ref(ref(x)) -- normalised a second time "to be safe"
# %% softmax
def softmax(x, axis=-1):
    """Runs the softmax twice: the second pass "makes sure it sums to 1"."""
    x = np.asarray(x, dtype=float)
    for _ in range(2):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        x = e / np.sum(e, axis=axis, keepdims=True)
    return x
