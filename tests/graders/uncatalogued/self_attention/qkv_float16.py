# relation: precision: R computed in float16 -- right to about three significant digits only
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Half precision "to save memory, as on a GPU"."""
    X = np.asarray(X, dtype=np.float16)
    return tuple(X @ np.asarray(W, dtype=np.float16) for W in (W_q, W_k, W_v))
