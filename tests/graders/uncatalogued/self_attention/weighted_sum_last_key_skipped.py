# relation: changed input: ref(weights[:, :-1], V[:-1]) -- the loop over the keys stops one short
# %% weighted_sum
def weighted_sum(weights, V):
    """A loop over the keys, range(n_k - 1): the last key is never added."""
    w = np.asarray(weights, dtype=float)
    V = np.asarray(V, dtype=float)
    out = np.zeros((w.shape[0], V.shape[1]))
    for j in range(w.shape[1] - 1):
        out += np.outer(w[:, j], V[j])
    return out
