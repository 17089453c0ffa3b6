# relation: transformed input: ref(X with each row standardised to mean 0, std 1) -- a LayerNorm before the projections
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Normalises each token first (pre-LN Transformer), without the learnt gain and bias."""
    X = np.asarray(X, dtype=float)
    X = (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)
    return tuple(X @ np.asarray(W, dtype=float) for W in (W_q, W_k, W_v))
