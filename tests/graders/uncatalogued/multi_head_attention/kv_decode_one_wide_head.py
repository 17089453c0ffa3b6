# relation: independent: the output does not depend on n_heads (decode_step attends with one wide head; the cache is right)
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
        return np.stack(self._keys, axis=1)

    @property
    def values(self):
        return np.stack(self._values, axis=1)

    def __len__(self):
        return len(self._keys)


def decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache):
    """Caches per head, but attends with the merged (full-width) query, keys and values."""
    x = np.asarray(x_t, dtype=float).reshape(1, -1)
    k, v = (split_heads(x @ W, n_heads) for W in (W_k, W_v))
    cache.append(k[:, 0], v[:, 0])
    out, _ = attention(x @ W_q, merge_heads(cache.keys), merge_heads(cache.values))
    return (out @ W_o)[0]
