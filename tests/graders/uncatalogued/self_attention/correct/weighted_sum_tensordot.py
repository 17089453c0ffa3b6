# correct: np.tensordot over the keys
# %% weighted_sum
def weighted_sum(weights, V):
    return np.tensordot(np.asarray(weights, dtype=float), np.asarray(V, dtype=float), axes=([1], [0]))
