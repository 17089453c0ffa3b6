# relation: step: right at the first step, then every step reuses the first token's query
# %% kv_cache
class KVCache:
    """Keys and values of every token seen so far."""

    def __init__(self):
        self._keys = []
        self._values = []

    def append(self, k, v):
        self._keys.append(np.asarray(k, dtype=float).reshape(-1))
        self._values.append(np.asarray(v, dtype=float).reshape(-1))

    @property
    def keys(self):
        return np.array(self._keys)

    @property
    def values(self):
        return np.array(self._values)

    def __len__(self):
        return len(self._keys)


def decode_step(x_t, W_q, W_k, W_v, cache):
    """Caches the query too, the first time, and reuses it at every later step."""
    x_t = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = project_qkv(x_t, W_q, W_k, W_v)
    if not hasattr(cache, "query"):
        cache.query = q
    cache.append(k[0], v[0])
    weights = softmax(scaled_scores(cache.query, cache.keys), axis=-1)
    return weighted_sum(weights, cache.values)[0]
