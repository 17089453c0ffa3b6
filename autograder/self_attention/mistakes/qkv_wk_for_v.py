# names: used W_k for the values
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Copy-paste slip: the values are projected with W_k."""
    X = np.asarray(X, dtype=float)
    return X @ W_q, X @ W_k, X @ W_k
