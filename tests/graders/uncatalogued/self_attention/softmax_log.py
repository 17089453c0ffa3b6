# relation: function: S = log R (a log-softmax, as in PyTorch's log_softmax)
# %% softmax
def softmax(x, axis=-1):
    """Computes the log-softmax (stable), the form a cross-entropy loss wants."""
    x = np.asarray(x, dtype=float)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
