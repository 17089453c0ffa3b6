# relation: changed input: ref(X - mean of the tokens) -- the tokens centred before projecting
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Centres the data first, as in PCA: subtracts the mean token."""
    X = np.asarray(X, dtype=float)
    X = X - X.mean(axis=0, keepdims=True)
    return X @ W_q, X @ W_k, X @ W_v
