# names: divided by the variance
# A classic mistake: the graders must take points off its exercise and say the phrase above.
# %% standardize
def standardize(x):
    x = np.asarray(x, dtype=float)
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / x.var(axis=-1, keepdims=True)
