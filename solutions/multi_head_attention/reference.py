"""Reference implementations for the multi-head attention assignment.

The names the notebook asks for (``causal_mask``, ``attention``,
``split_heads``, ``merge_heads``, ``multi_head_attention``, ``KVCache``,
``decode_step``) match the solution cells of
``source/multi_head_attention/multi_head_attention.ipynb``. The functions after
them compute what classic wrong routes give, so that the hidden graders can
name a mistake in their feedback.

Shapes: a sequence X is (n, d_model); W_q and W_k are (d_model, h·d_k), W_v is
(d_model, h·d_v) and W_o is (h·d_v, d_out). Head i owns the columns
i·d_k … (i+1)·d_k − 1 of the queries and keys, and i·d_v … (i+1)·d_v − 1 of
the values; the merged heads are concatenated in head order.
"""

from __future__ import annotations

import numpy as np

from gradekit.i18n import _

# ---------------------------------------------------------------------------
# the exercises


def causal_mask(n):
    """(n, n) booleans: True where query i may attend to key j, that is j <= i."""
    return np.tril(np.ones((n, n), dtype=bool))


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis``."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """Scaled dot-product attention over any number of leading axes (heads, batch).

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v); ``mask`` broadcasts
    to (..., n_q, n_k), True where a query may attend to a key. Returns
    (output (..., n_q, d_v), weights (..., n_q, n_k)).
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def split_heads(X, n_heads):
    """(n, h·d) -> (h, n, d): head i gets the columns i·d … (i+1)·d − 1."""
    X = np.asarray(X, dtype=float)
    n, width = X.shape
    return X.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    """(h, n, d) -> (n, h·d): the heads side by side, head 0 first."""
    H = np.asarray(H, dtype=float)
    h, n, d = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d)


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """Returns (output (n, d_out), weights (h, n, n))."""
    X = np.asarray(X, dtype=float)
    Q = split_heads(X @ np.asarray(W_q, dtype=float), n_heads)
    K = split_heads(X @ np.asarray(W_k, dtype=float), n_heads)
    V = split_heads(X @ np.asarray(W_v, dtype=float), n_heads)
    mask = causal_mask(X.shape[0]) if causal else None
    heads, weights = attention(Q, K, V, mask)
    return merge_heads(heads) @ np.asarray(W_o, dtype=float), weights


class KVCache:
    """Every head's keys and values of the tokens seen so far."""

    def __init__(self):
        self._keys = []
        self._values = []

    def append(self, k, v):
        """k: (h, d_k) and v: (h, d_v), one token's key and value in every head."""
        self._keys.append(np.array(k, dtype=float))
        self._values.append(np.array(v, dtype=float))

    @property
    def keys(self):
        """(h, t, d_k)."""
        return np.stack(self._keys, axis=1)

    @property
    def values(self):
        """(h, t, d_v)."""
        return np.stack(self._values, axis=1)

    def __len__(self):
        return len(self._keys)


def decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache):
    """One new token (d_model,): cache its keys and values, attend over the cache; returns (d_out,)."""
    x = np.asarray(x_t, dtype=float).reshape(1, -1)
    q = split_heads(x @ np.asarray(W_q, dtype=float), n_heads)   # (h, 1, d_k)
    k = split_heads(x @ np.asarray(W_k, dtype=float), n_heads)
    v = split_heads(x @ np.asarray(W_v, dtype=float), n_heads)
    cache.append(k[:, 0], v[:, 0])
    out, unused = attention(q, cache.keys, cache.values)               # (h, 1, d_v)
    return (merge_heads(out) @ np.asarray(W_o, dtype=float))[0]


# ---------------------------------------------------------------------------
# helpers for the graders: classic wrong routes


def attention_variant(Q, K, V, mask=None, *, scale=None, axis=-1, mask_mode="before"):
    """Attention with one ingredient changed; returns (output, weights).

    ``scale``: divide the scores by this instead of sqrt(d_k). ``axis``: softmax axis.
    ``mask_mode``: "before" (right), "after" (weights zeroed after the softmax,
    not renormalised), "zero" (masked scores set to 0 instead of -inf),
    "ignore" (no mask), "inverted" (attends where the mask is False).
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / (np.sqrt(K.shape[-1]) if scale is None else scale)
    allowed = None if mask is None else np.broadcast_to(np.asarray(mask, dtype=bool), scores.shape)
    if allowed is not None and mask_mode == "inverted":
        allowed = ~allowed
    with np.errstate(all="ignore"):
        if allowed is not None and mask_mode in ("before", "inverted"):
            scores = np.where(allowed, scores, -np.inf)
        if allowed is not None and mask_mode == "zero":
            scores = np.where(allowed, scores, 0.0)
        weights = softmax(scores, axis=axis)
        if allowed is not None and mask_mode == "after":
            weights = np.where(allowed, weights, 0.0)
        return np.nan_to_num(weights) @ V, weights


def split_interleaved(X, n_heads):
    """The wrong split: head i gets every h-th column, starting at column i."""
    X = np.asarray(X, dtype=float)
    n, width = X.shape
    return X.reshape(n, width // n_heads, n_heads).transpose(2, 0, 1)


def merge_interleaved(H):
    """The wrong merge: the heads' columns interleaved (H.transpose(1, 2, 0).reshape(n, -1))."""
    H = np.asarray(H, dtype=float)
    h, n, d = H.shape
    return H.transpose(1, 2, 0).reshape(n, h * d)


def mha_variant(X, W_q, W_k, W_v, W_o, n_heads, causal=False, *, scale=None, project=True,
                split=split_heads, merge=merge_heads, mask_mode="before", mask=None):
    """Multi-head attention with one ingredient changed; returns (output, weights).

    ``scale`` as in :func:`attention_variant`; ``project=False`` leaves out W_o;
    ``split``/``merge`` replace the head split and merge; ``mask`` replaces the
    causal mask (used when ``causal``).
    """
    X = np.asarray(X, dtype=float)
    Q, K, V = (split(X @ np.asarray(W, dtype=float), n_heads) for W in (W_q, W_k, W_v))
    if causal:
        m = causal_mask(X.shape[0]) if mask is None else mask
    else:
        m = None
    heads, weights = attention_variant(Q, K, V, m, scale=scale, mask_mode=mask_mode)
    merged = merge(heads)
    return (merged @ np.asarray(W_o, dtype=float) if project else merged), weights


def single_head_attention(X, W_q, W_k, W_v, causal=False):
    """Lecture 9's self-attention, softmax(QKᵀ/√d_k)V; returns (output, weights)."""
    X = np.asarray(X, dtype=float)
    mask = causal_mask(X.shape[0]) if causal else None
    return attention(X @ W_q, X @ W_k, X @ W_v, mask)


# ---------------------------------------------------------------------------
# the catalogue of wrong routes, shared by the graders of one function


def attention_routes(Q, K, V, mask=None):
    """{mistake: (output, weights)} for ``attention(Q, K, V, mask)``."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    d_k, d_v = K.shape[-1], V.shape[-1]
    routes = {
        _("no scaling: divide the scores by sqrt(d_k)"): dict(scale=1.0),
        _("divided the scores by d_k instead of sqrt(d_k)"): dict(scale=float(d_k)),
    }
    if d_v != d_k:
        routes[_("scaled by sqrt(d_v) instead of sqrt(d_k): the dot products have d_k terms")] = \
            dict(scale=float(np.sqrt(d_v)))
    for axis in range(Q.ndim - 1):
        routes[_("the softmax ran along axis {axis}, not the last axis: each query's weights over "
                 "the keys should sum to 1").format(axis=axis)] = dict(axis=axis)
    if mask is not None:
        routes.update({
            _("applied the mask after the softmax: the allowed weights no longer sum to 1 (set masked scores to -inf before the softmax)"): dict(mask_mode="after"),
            _("set the masked scores to 0 instead of -inf: a masked key still gets weight"): dict(mask_mode="zero"),
            _("ignored the mask"): dict(mask_mode="ignore"),
            _("attended where the mask is False: True marks the keys a query may see"): dict(mask_mode="inverted"),
        })
        m = np.asarray(mask, dtype=bool)
        if m.ndim >= 2 and m.shape[-1] == m.shape[-2]:
            routes[_("used the mask transposed: row i of the mask belongs to query i")] = \
                dict(mask=np.swapaxes(m, -1, -2))
    out = {}
    for name, kw in routes.items():
        kw = dict(kw)
        out[name] = attention_variant(Q, K, V, kw.pop("mask", mask), **kw)
    return out


def mha_routes(X, W_q, W_k, W_v, W_o, n_heads, causal=False):
    """{mistake: (output, weights)} for ``multi_head_attention`` (the helpers right, the layer wrong)."""
    X = np.asarray(X, dtype=float)
    n, d_model = X.shape
    hd_k = np.shape(W_q)[1]
    d_k = hd_k // n_heads
    routes = {
        _("forgot the output projection W_o: multiply the merged heads by W_o"): dict(project=False),
        _("no scaling: divide each head's scores by sqrt(d_k)"): dict(scale=1.0),
        _("split the projections in the wrong order (every n_heads-th column): head i owns d_k consecutive columns"): dict(split=split_interleaved),
        _("merged the heads in the wrong order (columns interleaved): head i's output goes to columns i·d_v … (i+1)·d_v − 1"): dict(merge=merge_interleaved),
    }
    if d_model != d_k:
        routes[_("scaled the scores by sqrt(d_model) instead of sqrt(d_k) of one head")] = \
            dict(scale=float(np.sqrt(d_model)))
    if hd_k not in (d_k, d_model):
        routes[_("scaled the scores by sqrt(n_heads·d_k), the width of all heads together, instead of "
               "sqrt(d_k) of one head")] = dict(scale=float(np.sqrt(hd_k)))
    if causal:
        routes.update({
            _("ignored causal=True: with the causal mask each token sees only itself and the tokens before it"): dict(mask_mode="ignore"),
            _("the causal mask's wrong triangle: token i may see tokens 0 … i, not the ones after it"):
                dict(mask=np.triu(np.ones((n, n), dtype=bool))),
            _("applied the mask after the softmax: the allowed weights no longer sum to 1"): dict(mask_mode="after"),
        })
    else:
        routes[_("used a causal mask although causal=False")] = dict(causal_anyway=True)
    out = {}
    for name, kw in routes.items():
        kw = dict(kw)
        is_causal = causal or kw.pop("causal_anyway", False)
        out[name] = mha_variant(X, W_q, W_k, W_v, W_o, n_heads, is_causal, **kw)
    return out


def random_layer(rng, n, d_model, n_heads, d_k, d_v, d_out):
    """A random X (n, d_model) and W_q, W_k, W_v, W_o for the graders.

    The projections are scaled by 1/sqrt(d_model), as layers are initialised,
    so the scores stay of order sqrt(d_k): a softmax that saturates would make
    different wrong routes give the same (one-hot) weights.
    """
    scale = 1.0 / np.sqrt(d_model)
    X = rng.normal(size=(n, d_model))
    W_q = scale * rng.normal(size=(d_model, n_heads * d_k))
    W_k = scale * rng.normal(size=(d_model, n_heads * d_k))
    W_v = scale * rng.normal(size=(d_model, n_heads * d_v))
    W_o = rng.normal(size=(n_heads * d_v, d_out)) / np.sqrt(n_heads * d_v)
    return X, W_q, W_k, W_v, W_o
