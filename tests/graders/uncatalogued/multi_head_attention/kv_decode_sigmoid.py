# relation: elementwise: every step's output = sigmoid(R) -- the one-layer σ after the output projection
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
    """σ(W_o · heads), the lecture's layer."""
    x = np.asarray(x_t, dtype=float).reshape(1, -1)
    q = split_heads(x @ W_q, n_heads)
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)
    cache.append(k[:, 0], v[:, 0])
    out, _ = attention(q, cache.keys, cache.values)
    return 1.0 / (1.0 + np.exp(-(merge_heads(out) @ W_o)[0]))
