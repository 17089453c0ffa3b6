# names: the window also looks ahead
# A window centred on the token: w - 1 tokens on each side, the future included.
# %% window_mask
def window_mask(n, w=None):
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        if w is None:
            mask[i, :i + 1] = True
        else:
            mask[i, max(0, i - w + 1):min(n, i + w)] = True
    return mask
