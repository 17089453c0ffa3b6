# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    return tuple(np.einsum("nd,de->ne", X, W) for W in (W_q, W_k, W_v))
# %% scaled_scores
def scaled_scores(Q, K):
    return np.einsum("ik,jk->ij", Q, K) / np.sqrt(np.shape(Q)[-1])
# %% softmax
def softmax(x, axis=-1):
    """exp(x - logsumexp(x)), with the log-sum-exp taken stably."""
    x = np.asarray(x, dtype=float)
    m = np.amax(x, axis=axis, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    return np.exp(x - lse)
# %% weighted_sum
def weighted_sum(weights, V):
    return np.einsum("ij,jd->id", weights, V)
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K))
    return weighted_sum(weights, V), weights
# %% kv_cache
class KVCache:
    """Grows two arrays with np.vstack; keys and values are plain attributes."""

    def __init__(self):
        self.keys = None
        self.values = None

    def append(self, k, v):
        k, v = np.atleast_2d(k), np.atleast_2d(v)
        self.keys = k if self.keys is None else np.vstack([self.keys, k])
        self.values = v if self.values is None else np.vstack([self.values, v])

    def __len__(self):
        return 0 if self.keys is None else self.keys.shape[0]


def decode_step(x_t, W_q, W_k, W_v, cache):
    q = np.einsum("d,de->e", x_t, W_q)
    cache.append(np.einsum("d,de->e", x_t, W_k), np.einsum("d,de->e", x_t, W_v))
    w = softmax(np.einsum("e,te->t", q, cache.keys) / np.sqrt(q.shape[0]))
    return np.einsum("t,td->d", w, cache.values)
