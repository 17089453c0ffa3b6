# relation: where: S = R but at j <= i - w, 1 there -- the distance written j - i, so the window never cuts anything
# %% window_mask
def window_mask(n, w=None):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    allowed = j <= i
    if w is not None:
        allowed = allowed & (j - i < w)
    return allowed
