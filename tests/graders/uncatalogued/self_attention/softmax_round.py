# relation: elementwise: S = round(R, 3) -- the weights rounded "for readability"
# %% softmax
def softmax(x, axis=-1):
    """Rounds the probabilities to three decimals, as they were printed in the lecture."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return np.round(e / np.sum(e, axis=axis, keepdims=True), 3)
