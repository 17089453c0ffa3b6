# relation: step: a ring buffer of 8 tokens -- right for the first 8 steps, then new tokens overwrite the oldest
# %% kv_cache
class KVCache:
    """A preallocated buffer of 8 tokens per head that wraps around when full."""
    CAPACITY = 8

    def __init__(self):
        self._k = None
        self._v = None
        self._t = 0

    def append(self, k, v):
        k, v = np.asarray(k, dtype=float), np.asarray(v, dtype=float)
        if self._k is None:
            self._k = np.zeros((k.shape[0], self.CAPACITY, k.shape[1]))
            self._v = np.zeros((v.shape[0], self.CAPACITY, v.shape[1]))
        slot = self._t % self.CAPACITY
        self._k[:, slot] = k
        self._v[:, slot] = v
        self._t += 1

    @property
    def keys(self):
        return self._k[:, :min(self._t, self.CAPACITY)].copy()

    @property
    def values(self):
        return self._v[:, :min(self._t, self.CAPACITY)].copy()

    def __len__(self):
        return self._t


def decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache):
    x = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    cache.append(k[:, 0], v[:, 0])
    out, _ = attention(q, cache.keys, cache.values)
    return (merge_heads(out) @ W_o)[0]
