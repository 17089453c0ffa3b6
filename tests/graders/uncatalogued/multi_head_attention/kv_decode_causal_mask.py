# relation: step: right at the first step, then every step attends only to the first token (a causal mask over the cache, row 0 taken)
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
    """Applies the causal mask while decoding, as in multi_head_attention."""
    x = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    cache.append(k[:, 0], v[:, 0])
    out, _ = attention(q, cache.keys, cache.values, causal_mask(len(cache)))
    return (merge_heads(out) @ W_o)[0]
