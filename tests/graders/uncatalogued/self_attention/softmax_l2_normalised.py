# relation: scaled: S = R * (sum / norm) along the axis -- divided by the Euclidean norm of the exps instead of their sum
# %% softmax
def softmax(x, axis=-1):
    """"Normalises" with np.linalg.norm: each slice gets length 1 instead of sum 1."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.linalg.norm(e, axis=axis, keepdims=True)
