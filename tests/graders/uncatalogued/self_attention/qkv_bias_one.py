# relation: shift: Q, K, V = R + 1 -- y = Wx + b with a bias b of ones that the exercise does not have
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Writes the lecture's layer Wx + b, with the bias initialised to ones."""
    X = np.asarray(X, dtype=float)
    b = 1.0
    return tuple(X @ np.asarray(W, dtype=float) + b for W in (W_q, W_k, W_v))
