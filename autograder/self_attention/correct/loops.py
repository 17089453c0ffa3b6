# %% project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Explicit loops over tokens and output features."""
    def project(W):
        n, d_in, d_out = len(X), len(W), len(W[0])
        out = np.zeros((n, d_out))
        for i in range(n):
            for j in range(d_out):
                total = 0.0
                for m in range(d_in):
                    total += X[i][m] * W[m][j]
                out[i, j] = total
        return out
    return project(W_q), project(W_k), project(W_v)
# %% scaled_scores
import math

def scaled_scores(Q, K):
    d_k = len(K[0])
    out = np.zeros((len(Q), len(K)))
    for i in range(len(Q)):
        for j in range(len(K)):
            out[i, j] = sum(Q[i][m] * K[j][m] for m in range(d_k)) / math.sqrt(d_k)
    return out
# %% softmax
def softmax(x, axis=-1):
    """Moves the axis to the end and loops over all the slices."""
    x = np.moveaxis(np.array(x, dtype=float), axis, -1)
    out = np.empty_like(x)
    for index in np.ndindex(*x.shape[:-1]):
        row = x[index]
        m = max(row)
        exps = [math.exp(v - m) for v in row]
        total = sum(exps)
        out[index] = [e / total for e in exps]
    return np.moveaxis(out, -1, axis)
# %% weighted_sum
def weighted_sum(weights, V):
    out = np.zeros((len(weights), len(V[0])))
    for i in range(len(weights)):
        for j in range(len(V)):
            out[i] += weights[i][j] * np.asarray(V[j], dtype=float)
    return out
# %% self_attention
def self_attention(X, W_q, W_k, W_v):
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    scores = scaled_scores(Q, K)
    weights = np.array([softmax(row) for row in scores])
    return weighted_sum(weights, V), weights
# %% kv_cache
class KVCache:
    def __init__(self):
        self.rows = []

    def append(self, k, v):
        self.rows.append((list(k), list(v)))

    @property
    def keys(self):
        return np.array([k for k, _ in self.rows])

    @property
    def values(self):
        return np.array([v for _, v in self.rows])

    def __len__(self):
        return len(self.rows)


def decode_step(x_t, W_q, W_k, W_v, cache):
    q = [sum(x_t[m] * W_q[m][j] for m in range(len(x_t))) for j in range(len(W_q[0]))]
    k = [sum(x_t[m] * W_k[m][j] for m in range(len(x_t))) for j in range(len(W_k[0]))]
    v = [sum(x_t[m] * W_v[m][j] for m in range(len(x_t))) for j in range(len(W_v[0]))]
    cache.append(k, v)
    scores = [sum(a * b for a, b in zip(q, key)) / math.sqrt(len(q)) for key in cache.keys]
    w = softmax(np.array(scores))
    out = np.zeros(len(v))
    for weight, value in zip(w, cache.values):
        out += weight * value
    return out
