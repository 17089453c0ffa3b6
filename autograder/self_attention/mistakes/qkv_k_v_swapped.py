# names: K and V swapped
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    X = np.asarray(X, dtype=float)
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    return Q, V, K
