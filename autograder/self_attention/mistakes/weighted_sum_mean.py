# names: plain mean of the values
# %% weighted_sum
def weighted_sum(weights, V):
    """Ignores the weights: every query gets the average value."""
    w = np.asarray(weights, dtype=float)
    V = np.asarray(V, dtype=float)
    return np.tile(V.mean(axis=0), (w.shape[0], 1))
