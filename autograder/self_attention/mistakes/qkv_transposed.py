# names: multiplied in the wrong order
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Multiplies W on the left (column-vector convention): results are transposed."""
    X = np.asarray(X, dtype=float)
    return W_q.T @ X.T, W_k.T @ X.T, W_v.T @ X.T
