# relation: step: right for the first two steps, then the oldest token is left out (cache.keys[:, 1:] once it holds more than two)
# %% kv_cache
class KVCache:
    """Every head's keys and values of the tokens seen so far."""

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
    """Leaves out "the start token" once there are more than two -- an off-by-one in the slice."""
    x = np.asarray(x_t, dtype=float).reshape(1, -1)
    q = split_heads(x @ W_q, n_heads)
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)
    cache.append(k[:, 0], v[:, 0])
    start = 1 if len(cache) > 2 else 0
    out, _ = attention(q, cache.keys[:, start:], cache.values[:, start:])
    return (merge_heads(out) @ W_o)[0]
