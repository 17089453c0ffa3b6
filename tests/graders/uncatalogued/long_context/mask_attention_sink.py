# relation: where: S = R but in the first column, 1 there -- the window keeps token 0 in view as an "attention sink"
# %% window_mask
def window_mask(n, w=None):
    """The last w tokens, and the first token always (StreamingLLM's sink, read about and added)."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    allowed = j <= i
    if w is not None:
        allowed = allowed & ((i - j < w) | (j == 0))
    return allowed
