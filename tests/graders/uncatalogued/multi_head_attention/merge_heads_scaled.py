# relation: factor: R / sqrt(h) -- the merged heads "normalised" by the square root of their number
# %% merge_heads
def merge_heads(H):
    """Divides by sqrt(h) so that the merged vector has the size of one head's."""
    H = np.asarray(H, dtype=float)
    h, n, d = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d) / np.sqrt(h)
