# names: the window holds w + 1 tokens
# "The last w tokens" read as "up to w positions back": i - j <= w lets w + 1 tokens in.
# %% window_mask
def window_mask(n, w=None):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    allowed = j <= i
    if w is not None:
        allowed = allowed & (i - j <= w)
    return allowed
