# names: the heads' columns interleaved
# %% merge_heads
def merge_heads(H):
    H = np.asarray(H, dtype=float)
    h, n, d = H.shape
    return H.transpose(1, 2, 0).reshape(n, h * d)
