# names: not every n_heads-th column
# %% split_heads
def split_heads(X, n_heads):
    X = np.asarray(X, dtype=float)
    n, width = X.shape
    return X.reshape(n, width // n_heads, n_heads).transpose(2, 0, 1)
