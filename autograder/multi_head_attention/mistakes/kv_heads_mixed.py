# names: mixed up heads and time steps
# %% kv_cache
class KVCache:
    def __init__(self):
        self._keys = []
        self._values = []

    def append(self, k, v):
        self._keys.append(np.array(k, dtype=float))
        self._values.append(np.array(v, dtype=float))

    @property
    def keys(self):
        t = len(self._keys)
        h, d = self._keys[0].shape
        return np.array(self._keys).reshape(h, t, d)     # (t, h, d) read as (h, t, d)

    @property
    def values(self):
        t = len(self._values)
        h, d = self._values[0].shape
        return np.array(self._values).reshape(h, t, d)

    def __len__(self):
        return len(self._keys)


def decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache):
    x = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    cache.append(k[:, 0], v[:, 0])
    out, _ = attention(q, cache.keys, cache.values)
    return (merge_heads(out) @ W_o)[0]
