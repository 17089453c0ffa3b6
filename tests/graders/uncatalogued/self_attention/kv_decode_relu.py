# relation: elementwise: every step's output = relu(R) -- a ReLU after the attention, as in the feed-forward layer
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
    """Ends in the layer's ReLU."""
    x_t = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = project_qkv(x_t, W_q, W_k, W_v)
    cache.append(k[0], v[0])
    weights = softmax(scaled_scores(q, cache.keys), axis=-1)
    return np.maximum(weighted_sum(weights, cache.values)[0], 0.0)
