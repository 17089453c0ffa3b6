# relation: factor: Q = R_Q / sqrt(d_k) (K and V right) -- the 1/sqrt(d_k) of the scores moved into the projection
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Scales the queries here "so that the scores come out scaled" -- but project_qkv must return plain X W_q."""
    X = np.asarray(X, dtype=float)
    W_q = np.asarray(W_q, dtype=float)
    Q = X @ W_q / np.sqrt(W_q.shape[1])
    K = X @ np.asarray(W_k, dtype=float)
    V = X @ np.asarray(W_v, dtype=float)
    return Q, K, V
