# names: without dividing by the sum
# %% softmax
def softmax(x, axis=-1):
    """Forgets the denominator."""
    return np.exp(np.asarray(x, dtype=float))
