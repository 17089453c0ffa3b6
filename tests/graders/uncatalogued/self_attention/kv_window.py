# relation: step: a sliding window of 4 tokens -- right for the first 4 steps, then the oldest tokens are dropped
# %% kv_cache
class KVCache:
    """Keeps only the 4 most recent tokens "to save memory" (but counts every append)."""
    WINDOW = 4

    def __init__(self):
        self._keys = []
        self._values = []
        self._count = 0

    def append(self, k, v):
        self._keys = (self._keys + [np.asarray(k, dtype=float).reshape(-1)])[-self.WINDOW:]
        self._values = (self._values + [np.asarray(v, dtype=float).reshape(-1)])[-self.WINDOW:]
        self._count += 1

    @property
    def keys(self):
        return np.array(self._keys)

    @property
    def values(self):
        return np.array(self._values)

    def __len__(self):
        return self._count


def decode_step(x_t, W_q, W_k, W_v, cache):
    x_t = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = project_qkv(x_t, W_q, W_k, W_v)
    cache.append(k[0], v[0])
    weights = softmax(scaled_scores(q, cache.keys), axis=-1)
    return weighted_sum(weights, cache.values)[0]
