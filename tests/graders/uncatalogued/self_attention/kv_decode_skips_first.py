# relation: step: right at the first step, then the first token is left out (cache.keys[1:], an off-by-one slice)
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
    """Skips "the start token" -- but the first cached token is a real one."""
    x_t = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = project_qkv(x_t, W_q, W_k, W_v)
    cache.append(k[0], v[0])
    start = 1 if len(cache) > 1 else 0
    weights = softmax(scaled_scores(q, cache.keys[start:]), axis=-1)
    return weighted_sum(weights, cache.values[start:])[0]
