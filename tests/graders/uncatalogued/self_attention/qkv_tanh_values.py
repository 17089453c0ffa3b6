# relation: elementwise: V = tanh(R_V) (Q and K right) -- the values squashed by a tanh, "as a hidden layer is"
# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Keeps the values bounded with a tanh, like the hidden state of an RNN."""
    X = np.asarray(X, dtype=float)
    return X @ np.asarray(W_q, dtype=float), X @ np.asarray(W_k, dtype=float), np.tanh(X @ np.asarray(W_v, dtype=float))
