# relation: where: the last row all False, the others right -- the loop over the queries stops one short
# %% causal_mask
def causal_mask(n):
    """Builds the mask row by row, range(n - 1)."""
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n - 1):
        mask[i, : i + 1] = True
    return mask
