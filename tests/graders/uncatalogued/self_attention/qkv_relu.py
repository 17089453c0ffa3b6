# relation: elementwise: Q, K, V = relu(R) -- the lecture's "one layer" y = σ(Wx) with a ReLU after each projection
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """A projection is "a layer", so it gets the layer's nonlinearity: max(0, X W)."""
    X = np.asarray(X, dtype=float)
    return tuple(np.maximum(0.0, X @ np.asarray(W, dtype=float)) for W in (W_q, W_k, W_v))
