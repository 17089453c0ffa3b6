# names: stacked as (t, n_heads, d)
# breaks: test_kv_cache
# %% kv_cache
class KVCache:
    # stores (t, n_heads, d); decode_step is written for that layout, so only the cache's own test fails
    def __init__(self):
        self._keys = []
        self._values = []

    def append(self, k, v):
        self._keys.append(np.array(k, dtype=float))
        self._values.append(np.array(v, dtype=float))

    @property
    def keys(self):
        return np.array(self._keys)

    @property
    def values(self):
        return np.array(self._values)

    def __len__(self):
        return len(self._keys)


def decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache):
    x = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    cache.append(k[:, 0], v[:, 0])
    out, _ = attention(q, cache.keys.transpose(1, 0, 2), cache.values.transpose(1, 0, 2))
    return (merge_heads(out) @ W_o)[0]
