# relation: order: the heads' column blocks rolled by one (head 1 first, head 0 last: the columns permuted) -- counting the heads from 1
# %% merge_heads
def merge_heads(H):
    """Takes the heads 1, 2, ..., h - 1 and then head 0 (an index counted from 1, wrapped)."""
    H = np.asarray(H, dtype=float)
    h = H.shape[0]
    return np.concatenate([H[(i + 1) % h] for i in range(h)], axis=1)
