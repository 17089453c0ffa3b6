# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Single precision throughout, as on a GPU."""
    X = np.asarray(X, dtype=np.float32)
    return tuple(X @ np.asarray(W, dtype=np.float32) for W in (W_q, W_k, W_v))
# %% scaled_scores
def scaled_scores(Q, K):
    Q = np.asarray(Q, dtype=np.float32)
    K = np.asarray(K, dtype=np.float32)
    return (Q @ K.T) * np.float32(1 / np.sqrt(K.shape[1]))
# %% softmax
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
# %% weighted_sum
def weighted_sum(weights, V):
    return np.asarray(weights, dtype=np.float32) @ np.asarray(V, dtype=np.float32)
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K))
    return weighted_sum(weights, V), weights
# %% kv_cache
class KVCache:
    """Preallocates and doubles a float32 buffer."""

    def __init__(self):
        self._k = None
        self._v = None
        self._t = 0

    def append(self, k, v):
        k = np.asarray(k, dtype=np.float32)
        v = np.asarray(v, dtype=np.float32)
        if self._k is None:
            self._k = np.zeros((4, k.size), dtype=np.float32)
            self._v = np.zeros((4, v.size), dtype=np.float32)
        if self._t == self._k.shape[0]:
            self._k = np.concatenate([self._k, np.zeros_like(self._k)])
            self._v = np.concatenate([self._v, np.zeros_like(self._v)])
        self._k[self._t] = k
        self._v[self._t] = v
        self._t += 1

    @property
    def keys(self):
        return self._k[: self._t]

    @property
    def values(self):
        return self._v[: self._t]

    def __len__(self):
        return self._t


def decode_step(x_t, W_q, W_k, W_v, cache):
    q, k, v = project_qkv(np.reshape(x_t, (1, -1)), W_q, W_k, W_v)
    cache.append(k[0], v[0])
    return weighted_sum(softmax(scaled_scores(q, cache.keys)), cache.values)[0]
