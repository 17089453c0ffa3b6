# correct: the mask as floats 1.0 and 0.0 (numerically the booleans)
# %% causal_mask
def causal_mask(n):
    return np.tril(np.ones((n, n)))
