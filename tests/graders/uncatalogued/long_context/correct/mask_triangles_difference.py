# correct: the window as the difference of two integer triangles (0/1, not booleans), w=None taken as w = n
# %% window_mask
def window_mask(n, w=None):
    w = n if w is None else w
    return np.tril(np.ones((n, n), dtype=int)) - np.tril(np.ones((n, n), dtype=int), k=-w)
