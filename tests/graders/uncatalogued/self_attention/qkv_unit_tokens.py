# relation: scaled: Q_ij = R_ij / |x_i| (the same for K and V) -- every token normalised to unit length before projecting
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Normalises each token to length 1 first (a half-remembered LayerNorm)."""
    X = np.asarray(X, dtype=float)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    return X @ W_q, X @ W_k, X @ W_v
