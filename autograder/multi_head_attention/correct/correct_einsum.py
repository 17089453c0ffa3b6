# Right answers written with einsum, and the thought questions worked out in code.
# %% causal_mask
def causal_mask(n):
    i = np.arange(n)
    return i[:, None] >= i[None, :]
# %% attention
def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = np.einsum("...qd,...kd->...qk", Q, K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    lse = np.max(scores, axis=-1, keepdims=True)
    lse = lse + np.log(np.sum(np.exp(scores - lse), axis=-1, keepdims=True))
    weights = np.exp(scores - lse)
    return np.einsum("...qk,...kd->...qd", weights, V), weights
# %% split_heads
def split_heads(X, n_heads):
    X = np.asarray(X, dtype=float)
    return np.einsum("nhd->hnd", X.reshape(X.shape[0], n_heads, -1))
# %% merge_heads
def merge_heads(H):
    H = np.asarray(H, dtype=float)
    return np.einsum("hnd->nhd", H).reshape(H.shape[1], -1)
# %% multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    Q, K, V = (split_heads(np.einsum("nd,de->ne", X, W), n_heads) for W in (W_q, W_k, W_v))
    heads, weights = attention(Q, K, V, causal_mask(len(X)) if causal else None)
    return np.einsum("ne,eo->no", merge_heads(heads), W_o), weights
# %% kv_cache
class KVCache:
    def __init__(self):
        self.k, self.v = None, None

    def append(self, k, v):
        k, v = np.asarray(k, dtype=float)[:, None, :], np.asarray(v, dtype=float)[:, None, :]
        self.k = k if self.k is None else np.concatenate([self.k, k], axis=1)
        self.v = v if self.v is None else np.concatenate([self.v, v], axis=1)

    @property
    def keys(self):
        return self.k

    @property
    def values(self):
        return self.v

    def __len__(self):
        return 0 if self.k is None else self.k.shape[1]


def decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache):
    q, k, v = (np.einsum("d,de->e", np.asarray(x_t, dtype=float), W).reshape(n_heads, -1) for W in (W_q, W_k, W_v))
    cache.append(k, v)
    s = np.einsum("hd,htd->ht", q, cache.keys) / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return np.einsum("ht,htd->hd", w, cache.values).reshape(-1) @ W_o
# %% tq1
tq1_params = 4 * tq1_d_model * tq1_d_model
tq1_head_params = 3 * tq1_d_model * tq1_d_model / tq1_heads
# %% tq2
tq2_bytes = 2 * 2 * tq2_heads * tq2_d_head
tq2_mib = tq2_bytes * tq2_layers * tq2_context / 1024 / 1024
# %% tq3
tq3_compute_ratio = (tq3_heads * tq3_n ** 2 * (tq3_d_model / tq3_heads)) / (tq3_n ** 2 * tq3_d_model)
tq3_tables = tq3_heads * tq3_n ** 2 / tq3_n ** 2
tq3_choice = ("As many multiply-adds as one wide head, but n_heads score tables to keep: the heads buy "
              "separate patterns, not speed.")
