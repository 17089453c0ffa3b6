# names: reshaped straight to (n_heads, n, d)
# %% split_heads
def split_heads(X, n_heads):
    X = np.asarray(X, dtype=float)
    n, width = X.shape
    return X.reshape(n_heads, n, width // n_heads)
