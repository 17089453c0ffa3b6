"""Reference implementations for the self-attention assignment.

The seven names the notebook asks for (``project_qkv``, ``scaled_scores``,
``softmax``, ``weighted_sum``, ``self_attention``, ``KVCache``,
``decode_step``) match the solution cells of
``source/self_attention/self_attention.ipynb``. The helpers after them
compute the values that classic wrong routes produce, so the hidden graders
can name a mistake in their feedback.
"""

from __future__ import annotations

import numpy as np

from gradekit.graders.check import FAILS
from gradekit.i18n import _

# ---------------------------------------------------------------------------
# the exercises


def project_qkv(X, W_q, W_k, W_v):
    """Project the rows of X (n x d_model) to queries, keys and values."""
    X = np.asarray(X, dtype=float)
    Q = X @ np.asarray(W_q, dtype=float)
    K = X @ np.asarray(W_k, dtype=float)
    V = X @ np.asarray(W_v, dtype=float)
    return Q, K, V


def scaled_scores(Q, K):
    """Q K^T / sqrt(d_k): entry (i, j) says how well query i matches key j."""
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    d_k = K.shape[-1]
    return Q @ K.T / np.sqrt(d_k)


def softmax(x, axis=-1):
    """Numerically stable softmax of x along ``axis`` (any number of dims)."""
    x = np.asarray(x, dtype=float)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def weighted_sum(weights, V):
    """Row i of the result is sum_j weights[i, j] * V[j]."""
    return np.asarray(weights, dtype=float) @ np.asarray(V, dtype=float)


def self_attention(X, W_q, W_k, W_v):
    """Single-head self-attention; returns (output n x d_v, weights n x n)."""
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    weights = softmax(scaled_scores(Q, K), axis=-1)
    output = weighted_sum(weights, V)
    return output, weights


class KVCache:
    """The keys and values of every token generated so far."""

    def __init__(self):
        self._keys = []
        self._values = []

    def append(self, k, v):
        self._keys.append(np.asarray(k, dtype=float).reshape(-1))
        self._values.append(np.asarray(v, dtype=float).reshape(-1))

    @property
    def keys(self):
        return np.array(self._keys)

    @property
    def values(self):
        return np.array(self._values)

    def __len__(self):
        return len(self._keys)


def decode_step(x_t, W_q, W_k, W_v, cache):
    """One generation step: cache the new token's k, v, then attend over the cache."""
    x_t = np.asarray(x_t, dtype=float).reshape(1, -1)
    q, k, v = project_qkv(x_t, W_q, W_k, W_v)
    cache.append(k[0], v[0])
    weights = softmax(scaled_scores(q, cache.keys), axis=-1)
    return weighted_sum(weights, cache.values)[0]


# ---------------------------------------------------------------------------
# helpers for the graders: correct variants and classic mistakes


def causal_self_attention(X, W_q, W_k, W_v):
    """Self-attention where token i only sees tokens 0..i; returns (output, weights).

    Row t-1 of the output is what ``decode_step`` returns for the t-th token.
    """
    return attention_variant(X, W_q, W_k, W_v, causal=True)


def naive_softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) without subtracting the maximum (overflows: nan/inf)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(x)
        return e / np.sum(e, axis=axis, keepdims=True)


def global_shift_softmax(x, axis=-1):
    """Softmax that subtracts the maximum of the whole array, not along ``axis``."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(x - np.max(x))
        return e / np.sum(e, axis=axis, keepdims=True)


def flat_softmax(x):
    """Softmax normalised over every element at once (the axis ignored entirely)."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def attention_variant(X, W_q, W_k, W_v, *, scale=None, swap_qk=False, axis=-1,
                      causal=False, value_matrix=None, exclude_self=False, query_matrix=None,
                      key_matrix=None, weights="softmax"):
    """Self-attention with one ingredient changed; returns (output, weights).

    ``scale``: divide the scores by this instead of sqrt(d_k) (1.0 = unscaled).
    ``swap_qk``: use K Q^T (Q and K swapped). ``axis``: softmax axis.
    ``causal``: token i sees only tokens 0..i. ``exclude_self``: token i sees only
    tokens 0..i-1 (row 0 is then undefined and set to nan).
    ``query_matrix``, ``key_matrix``, ``value_matrix``: project with this matrix
    instead of W_q, W_k, W_v (an identity: no projection).
    ``weights``: "softmax"; "raw" (the scaled scores themselves); "uniform"
    (1/n each); "flat" (one softmax over the whole table); "transposed" (the
    softmax's rows used as columns).
    """
    X = np.asarray(X, dtype=float)
    W_q = W_q if query_matrix is None else query_matrix
    W_k = W_k if key_matrix is None else key_matrix
    W_v = W_v if value_matrix is None else value_matrix
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    if swap_qk:
        Q, K = K, Q
    s = Q @ K.T
    s = s / (np.sqrt(K.shape[-1]) if scale is None else scale)
    n = s.shape[0]
    if causal or exclude_self:
        allowed = np.tril(np.ones((n, n), dtype=bool), k=-1 if exclude_self else 0)
        s = np.where(allowed, s, -np.inf)
    if weights == "raw":
        w = s
    elif weights == "uniform":
        w = np.full_like(s, 1.0 / s.shape[-1])
    elif weights == "flat":
        w = flat_softmax(s)
    elif weights == "transposed":
        w = softmax(s, axis=-1).T
    else:
        with np.errstate(invalid="ignore"):
            w = softmax(s, axis=axis)  # a row with no allowed key becomes nan
    out = np.where(np.isnan(w), 0.0, w) @ V
    out[np.all(np.isnan(w), axis=-1)] = np.nan
    return out, w


def softmax_routes(x, axis):
    """The values classic wrong softmax routes give on ``x`` for ``axis``: {catalogue name: value}.

    The names do not depend on the input, so that the evidence of several
    inputs adds up: a softmax that always normalises axis 0 is "axis 0
    whatever `axis` says" on every input. A route that raises on this input
    (an axis it does not have, a sum that does not broadcast) is FAILS.
    """
    x = np.asarray(x, dtype=float)
    ndim = x.ndim
    routes = {IGNORES_AXIS: softmax(x, axis=-1)}
    for k in range(4):  # an axis the input does not have raises
        routes[FIXED_AXIS.format(k=k)] = softmax(x, axis=k) if k < ndim else FAILS
    routes[FLAT] = flat_softmax(x) if ndim > 1 else None
    with np.errstate(all="ignore"):
        e = np.exp(x)
        routes[EXP_ONLY] = e
        total = np.sum(x, axis=axis, keepdims=True)
        routes[NO_EXP] = x / total if np.all(np.abs(total) > 1e-9) else None
    routes[NO_KEEPDIMS] = _no_keepdims(x, axis, np.max(x, axis=axis, keepdims=True))
    routes[NO_KEEPDIMS_GLOBAL] = _no_keepdims(x, axis, np.max(x))
    routes[UNSTABLE] = naive_softmax(x, axis=axis)
    routes[GLOBAL_MAX] = global_shift_softmax(x, axis=axis)
    return routes


IGNORES_AXIS = _("normalised along the last axis whatever `axis` says: is the `axis` argument ignored?")
FIXED_AXIS = _("normalised along axis {k} whatever `axis` says")
FLAT = _("normalised over the whole array at once instead of along one axis")
EXP_ONLY = _("returned exp(x) without dividing by the sum")
NO_EXP = _("normalised the raw scores (x / sum of x) without taking exp")
NO_KEEPDIMS = _("the sum lost its axis (use keepdims=True) and was broadcast along the wrong axis")
NO_KEEPDIMS_GLOBAL = (_("the sum lost its axis (use keepdims=True) and was broadcast along the wrong axis, after subtracting the maximum of the whole array"))
UNSTABLE = _("not numerically stable: exp() overflowed or underflowed -- subtract the maximum along the axis before exp")
GLOBAL_MAX = _("subtracted the maximum of the whole array instead of the maximum along the axis")


def _no_keepdims(x, axis, m):
    """exp(x - m) / sum(exp(x - m), axis) when the sum loses its axis (FAILS where it does not broadcast)."""
    with np.errstate(all="ignore"):
        e = np.exp(x - m)
        try:
            return e / np.sum(e, axis=axis)
        except ValueError:
            return FAILS


def cache_routes(K, V):
    """What classic wrong KVCache storage hands back as (keys, values) after the rows K, V were appended."""
    K, V = np.asarray(K, dtype=float), np.asarray(V, dtype=float)
    return {
        CACHE_SWAPPED: (V, K),
        CACHE_REVERSED: (K[::-1], V[::-1]),
        CACHE_LAST_ONLY: (K[-1:], V[-1:]),
        CACHE_LAST_ONLY_1D: (K[-1], V[-1]),
        CACHE_FIRST_ONLY: (K[:1], V[:1]),
        CACHE_FLAT: (K.reshape(-1), V.reshape(-1)),
        CACHE_COLUMNS: (K.T, V.T),
    }


CACHE_SWAPPED = _("keys and values swapped")
CACHE_REVERSED = _("stored in reverse order (newest first)")
CACHE_LAST_ONLY = _("only the last token is kept")
CACHE_LAST_ONLY_1D = _("only the last token is kept (as a 1-d array)")
CACHE_FIRST_ONLY = _("only the first token is kept: later appends are lost")
CACHE_FLAT = _("stored as one flat array instead of a (t, d) table")
CACHE_COLUMNS = _("stored as columns: the table is (d, t) instead of (t, d)")
