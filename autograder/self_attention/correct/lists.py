# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Returns Python lists of lists, in a list."""
    X = np.asarray(X)
    return [(X @ np.asarray(W)).tolist() for W in (W_q, W_k, W_v)]
# %% scaled_scores
def scaled_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    return (Q @ K.T / K.shape[1] ** 0.5).tolist()
# %% softmax
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).tolist()
# %% weighted_sum
def weighted_sum(weights, V):
    return [[sum(w * row[j] for w, row in zip(ws, V)) for j in range(len(V[0]))] for ws in np.asarray(weights).tolist()]
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1)
    return weighted_sum(weights, V), weights
# %% kv_cache
class KVCache:
    """Keeps lists and hands them out as lists."""

    def __init__(self):
        self.keys = []
        self.values = []

    def append(self, k, v):
        self.keys.append([float(a) for a in k])
        self.values.append([float(a) for a in v])

    def __len__(self):
        return len(self.keys)


def decode_step(x_t, W_q, W_k, W_v, cache):
    q, k, v = project_qkv(np.asarray(x_t)[None, :], W_q, W_k, W_v)
    cache.append(k[0], v[0])
    weights = softmax(scaled_scores(q, cache.keys), axis=-1)
    return weighted_sum(weights, cache.values)[0]
