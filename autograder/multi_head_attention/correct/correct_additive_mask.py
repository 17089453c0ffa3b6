# Right answers with an additive mask (-1e9), splitting by slicing, merging by concatenating,
# and a cache kept as one growing array per head.
# %% causal_mask
def causal_mask(n):
    return np.arange(n)[None, :] <= np.arange(n)[:, None]
# %% attention
def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = np.matmul(Q, np.moveaxis(K, -1, -2)) * (1.0 / K.shape[-1] ** 0.5)
    if mask is not None:
        scores = scores + np.where(mask, 0.0, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.matmul(weights, V), weights
# %% split_heads
def split_heads(X, n_heads):
    return np.stack(np.split(np.asarray(X, dtype=float), n_heads, axis=1))
# %% merge_heads
def merge_heads(H):
    H = np.asarray(H, dtype=float)
    return np.concatenate(list(H), axis=-1)
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    X = np.asarray(X, dtype=float)
    Q = split_heads(np.dot(X, W_q), n_heads)
    K = split_heads(np.dot(X, W_k), n_heads)
    V = split_heads(np.dot(X, W_v), n_heads)
    out, weights = attention(Q, K, V, mask=causal_mask(X.shape[0]) if causal else None)
    return np.dot(merge_heads(out), W_o), weights
# %% kv_cache
class KVCache:
    def __init__(self):
        self._k = []
        self._v = []

    def append(self, k, v):
        k, v = np.asarray(k, dtype=float), np.asarray(v, dtype=float)
        if not self._k:
            self._k = [np.empty((0, k.shape[1])) for _ in range(k.shape[0])]
            self._v = [np.empty((0, v.shape[1])) for _ in range(v.shape[0])]
        self._k = [np.vstack([old, new]) for old, new in zip(self._k, k)]
        self._v = [np.vstack([old, new]) for old, new in zip(self._v, v)]

    @property
    def keys(self):
        return np.array(self._k)

    @property
    def values(self):
        return np.array(self._v)

    def __len__(self):
        return self._k[0].shape[0] if self._k else 0


def decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache):
    x = np.atleast_2d(np.asarray(x_t, dtype=float))
    q = split_heads(x @ W_q, n_heads)
    cache.append(split_heads(x @ W_k, n_heads)[:, 0], split_heads(x @ W_v, n_heads)[:, 0])
    out, _ = attention(q, cache.keys, cache.values, mask=np.ones((1, len(cache)), dtype=bool))
    return merge_heads(out)[0] @ W_o
