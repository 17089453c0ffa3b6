# names: W_q was used for the keys too
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Copy-paste slip: Q is right, K is projected with W_q as well."""
    X = np.asarray(X, dtype=float)
    return X @ W_q, X @ W_q, X @ W_v
