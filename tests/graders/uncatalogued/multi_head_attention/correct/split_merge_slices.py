# correct: split_heads and merge_heads with slices, np.stack and np.concatenate
# %% split_heads
def split_heads(X, n_heads):
    X = np.asarray(X, dtype=float)
    d = X.shape[1] // n_heads
    return np.stack([X[:, i * d:(i + 1) * d] for i in range(n_heads)])
# %% merge_heads
def merge_heads(H):
    H = np.asarray(H, dtype=float)
    return np.concatenate(list(H), axis=1)
