# names: reshaped without moving the head axis back
# %% merge_heads
def merge_heads(H):
    H = np.asarray(H, dtype=float)
    h, n, d = H.shape
    return H.reshape(n, h * d)
