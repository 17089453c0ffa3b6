# relation: factor: Q, K, V = sqrt(d_model) R -- the embeddings scaled by sqrt(d_model) first, as the Transformer paper does
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Multiplies the token embeddings by sqrt(d_model) before projecting (Vaswani et al., section 3.4)."""
    X = np.asarray(X, dtype=float)
    X = X * np.sqrt(X.shape[1])
    return tuple(X @ np.asarray(W, dtype=float) for W in (W_q, W_k, W_v))
