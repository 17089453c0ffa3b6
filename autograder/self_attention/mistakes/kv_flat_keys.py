# names: one flat array
# %% kv_cache
class KVCache:
    """Concatenates everything into flat 1-d arrays instead of (t, d) tables."""

    def __init__(self):
        self.keys = np.zeros(0)
        self.values = np.zeros(0)
        self.count = 0

    def append(self, k, v):
        self.keys = np.concatenate([self.keys, np.ravel(k)])
        self.values = np.concatenate([self.values, np.ravel(v)])
        self.count += 1

    def __len__(self):
        return self.count


def decode_step(x_t, W_q, W_k, W_v, cache):
    x_t = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = project_qkv(x_t, W_q, W_k, W_v)
    cache.append(k[0], v[0])
    K = cache.keys.reshape(len(cache), -1)
    V = cache.values.reshape(len(cache), -1)
    weights = softmax(scaled_scores(q, K), axis=-1)
    return weighted_sum(weights, V)[0]
