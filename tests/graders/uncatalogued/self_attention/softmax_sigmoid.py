# relation: input elementwise: S = sigmoid(x) -- the "one layer" nonlinearity σ in place of the softmax
# %% softmax
def softmax(x, axis=-1):
    """Each score squashed into (0, 1) on its own: the logistic function."""
    x = np.asarray(x, dtype=float)
    return 1.0 / (1.0 + np.exp(-x))
