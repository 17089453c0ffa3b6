# relation: where: the last row is 0, the others right -- the loop over the queries stops one short
# %% weighted_sum
def weighted_sum(weights, V):
    """Fills the output row by row, range(n_q - 1): the last row stays at its zeros."""
    w = np.asarray(weights, dtype=float)
    V = np.asarray(V, dtype=float)
    out = np.zeros((w.shape[0], V.shape[1]))
    for i in range(w.shape[0] - 1):
        out[i] = w[i] @ V
    return out
