# correct: each of Q and K divided by d_k ** 0.25 before the product
# %% scaled_scores
def scaled_scores(Q, K):
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    s = K.shape[1] ** 0.25
    return (Q / s) @ (K / s).T
