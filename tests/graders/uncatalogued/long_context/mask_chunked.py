# relation: where: S = R but at some j just below i, 0 there -- fixed chunks of w tokens instead of a window that slides
# %% window_mask
def window_mask(n, w=None):
    """"Blocks of w tokens": a token sees the earlier tokens of its own chunk only."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    allowed = j <= i
    if w is not None:
        allowed = allowed & (i // w == j // w)
    return allowed
