# names: took the w tokens before the token
# The w tokens before position i, the token itself left out (and the causal mask without its diagonal).
# %% window_mask
def window_mask(n, w=None):
    below = np.tril(np.ones((n, n), dtype=bool), k=-1)
    if w is None:
        return below
    return below & np.triu(np.ones((n, n), dtype=bool), k=-w)
