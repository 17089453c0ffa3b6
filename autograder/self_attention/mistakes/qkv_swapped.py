# names: Q and K swapped
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Returns the keys where the queries belong and vice versa."""
    X = np.asarray(X, dtype=float)
    Q = X @ W_q
    K = X @ W_k
    V = X @ W_v
    return K, Q, V
