# Right answers written with loops over heads, tokens and leading axes.
# %% causal_mask
def causal_mask(n):
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            mask[i, j] = True
    return mask
# %% attention
def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    n_q, n_k = Q.shape[-2], K.shape[-2]
    allowed = np.ones((n_q, n_k), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    allowed = np.broadcast_to(allowed, lead + (n_q, n_k))
    Q, K, V = (np.broadcast_to(a, lead + a.shape[-2:]) for a in (Q, K, V))
    weights = np.zeros(lead + (n_q, n_k))
    output = np.zeros(lead + (n_q, V.shape[-1]))
    for idx in np.ndindex(*lead):
        for i in range(n_q):
            keys = [j for j in range(n_k) if allowed[idx + (i, j)]]
            scores = [float(Q[idx + (i,)] @ K[idx + (j,)]) / np.sqrt(K.shape[-1]) for j in keys]
            top = max(scores)
            exps = [np.exp(s - top) for s in scores]
            total = sum(exps)
            for j, e in zip(keys, exps):
                weights[idx + (i, j)] = e / total
                output[idx + (i,)] += e / total * V[idx + (j,)]
    return output, weights
# %% split_heads
def split_heads(X, n_heads):
    X = np.asarray(X, dtype=float)
    d = X.shape[1] // n_heads
    return np.array([X[:, i * d:(i + 1) * d] for i in range(n_heads)])
# %% merge_heads
def merge_heads(H):
    return np.concatenate([np.asarray(head, dtype=float) for head in H], axis=1)
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    X = np.asarray(X, dtype=float)
    outputs, weights = [], []
    for Q, K, V in zip(split_heads(X @ W_q, n_heads), split_heads(X @ W_k, n_heads), split_heads(X @ W_v, n_heads)):
        out, w = attention(Q, K, V, causal_mask(len(X)) if causal else None)
        outputs.append(out)
        weights.append(w)
    return merge_heads(np.array(outputs)) @ W_o, np.array(weights)
# %% kv_cache
class KVCache:
    def __init__(self):
        self.per_head_keys = None
        self.per_head_values = None
        self.t = 0

    def append(self, k, v):
        if self.per_head_keys is None:
            self.per_head_keys = [[] for _ in range(len(k))]
            self.per_head_values = [[] for _ in range(len(v))]
        for head, row in enumerate(k):
            self.per_head_keys[head].append(list(row))
        for head, row in enumerate(v):
            self.per_head_values[head].append(list(row))
        self.t += 1

    @property
    def keys(self):
        return np.array(self.per_head_keys, dtype=float)

    @property
    def values(self):
        return np.array(self.per_head_values, dtype=float)

    def __len__(self):
        return self.t


def decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache):
    x = np.asarray(x_t, dtype=float)
    q, k, v = (split_heads((x @ W)[None, :], n_heads) for W in (W_q, W_k, W_v))
    cache.append(k[:, 0, :], v[:, 0, :])
    heads = [attention(q[i], cache.keys[i], cache.values[i])[0] for i in range(n_heads)]
    return (merge_heads(np.array(heads)) @ W_o)[0]
