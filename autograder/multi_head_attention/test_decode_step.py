"""Hidden tests for the cell `test_decode_step`: decode_step(x_t, W_q, W_k, W_v, W_o, n_heads, cache).

Step t must return row t of causal multi-head attention. The student's
causal_mask, attention, split_heads, merge_heads and multi_head_attention are
replaced by the reference ones; their KVCache is used (it is part of this
exercise).
"""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-7)
HELPERS = ("causal_mask", "attention", "split_heads", "merge_heads", "multi_head_attention")


def _attend(reference, q, K, V, W_o, scale=None, project=True):
    """q (h, 1, d_k) over K (h, t, d_k), V (h, t, d_v); merged, projected: (d_out,)."""
    out, unused = reference.attention_variant(q, K, V, scale=scale)
    merged = reference.merge_heads(out)[0]
    return merged @ W_o if project else merged


def _step_routes(reference, X, W_q, W_k, W_v, W_o, h, t, K_before=None, V_before=None):
    """Wrong outputs for X[t], when the cache held K_before/V_before (default: the heads of X[:t])."""
    split = lambda A: reference.split_heads(A, h)
    q = split(X[t:t + 1] @ W_q)
    k_new, v_new = split(X[t:t + 1] @ W_k), split(X[t:t + 1] @ W_v)
    if K_before is None:
        K_before, V_before = split(X[:t] @ W_k), split(X[:t] @ W_v)
    K, V = np.concatenate([K_before, k_new], axis=1), np.concatenate([V_before, v_new], axis=1)
    d_k, d_model = K.shape[-1], X.shape[1]
    routes = {
        _("ignores the cache: the new token attends only to itself"): _attend(reference, q, k_new, v_new, W_o),
        _("forgot the output projection W_o: multiply the merged heads by W_o"): _attend(reference, q, K, V, W_o,
                                                                                      project=False),
        _("no scaling: divide each head's scores by sqrt(d_k)"): _attend(reference, q, K, V, W_o, scale=1.0),
    }
    if d_model != d_k:
        routes[_("scaled the scores by sqrt(d_model) instead of sqrt(d_k) of one head")] = \
            _attend(reference, q, K, V, W_o, scale=float(np.sqrt(d_model)))
    if K.shape[1] > 1:
        routes[_("the new token does not attend to itself: append its keys and values to the cache before "
               "attending")] = _attend(reference, q, K_before, V_before, W_o)
        mixed = lambda A: A.transpose(1, 0, 2).reshape(A.shape)  # (t, h, d) read as (h, t, d)
        routes[_("the cache mixed up heads and time steps: each head's keys and values must stay in that head")] = \
            _attend(reference, q, mixed(K), mixed(V), W_o)
    return routes


def _decode_all(student, reference, X, W_q, W_k, W_v, W_o, h, what):
    layer = student.with_reference(*HELPERS)
    cache = layer.KVCache()
    expected, unused = reference.multi_head_attention(X, W_q, W_k, W_v, W_o, h, causal=True)
    for t in range(X.shape[0]):
        got = layer.decode_step(X[t], W_q, W_k, W_v, W_o, h, cache)
        check.array(got, expected[t], what=_("decode_step for token {number} of {what} (row {number} of causal multi-head attention)").format(number=t + 1, what=what), **TOL,
                    step=t, mistakes=lambda: _step_routes(reference, X, W_q, W_k, W_v, W_o, h, t))
    return cache


def test_matches_causal_attention_row_by_row(student, reference, rng):
    """every step equals the row of causal multi-head attention"""
    layer = reference.random_layer(rng, 6, 5, 2, 3, 2, 4)
    _decode_all(student, reference, *layer, 2, _("6 tokens (d_model=5, 2 heads, d_k=3, d_v=2, d_out=4)"))


def test_several_head_counts(student, reference, rng):
    """1, 3 and 4 heads"""
    for h in (1, 3, 4):
        layer = reference.random_layer(rng, 4, 6, h, 2, 3, 5)
        _decode_all(student, reference, *layer, h, _("4 tokens with {h} head(s) (d_model=6, d_k=2, d_v=3)").format(h=h))


def test_your_notebook_layer(student, reference, params):
    """your notebook's layer"""
    X, W_q, W_k, W_v, W_o = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v", "W_o"))
    h = params["n_heads"]
    cache = _decode_all(student, reference, X, W_q, W_k, W_v, W_o, h, _("your notebook's X"))
    n = len(cache)
    assert n == X.shape[0], _("after {value} decode steps the cache should hold {value} tokens, not {n}").format(value=X.shape[0], n=n)


def test_attends_over_what_the_cache_holds(student, reference, rng):
    """a cache filled by hand with 4 tokens, as from a prompt"""
    h, d_model, d_k, d_v, d_out = 3, 5, 2, 3, 4
    unused, W_q, W_k, W_v, W_o = reference.random_layer(rng, 1, d_model, h, d_k, d_v, d_out)
    layer = student.with_reference(*HELPERS)
    cache = layer.KVCache()
    K_old, V_old = 2.0 * rng.normal(size=(h, 4, d_k)), rng.normal(size=(h, 4, d_v))
    for i in range(4):
        cache.append(K_old[:, i], V_old[:, i])
    x = rng.normal(size=(1, d_model))
    split = lambda A: reference.split_heads(A, h)
    K = np.concatenate([K_old, split(x @ W_k)], axis=1)
    V = np.concatenate([V_old, split(x @ W_v)], axis=1)
    got = layer.decode_step(x[0], W_q, W_k, W_v, W_o, h, cache)
    check.array(got, _attend(reference, split(x @ W_q), K, V, W_o), what=_("decode_step on a cache already holding 4 tokens (it should attend over all 5)"), **TOL,
                mistakes=lambda: _step_routes(reference, x, W_q, W_k, W_v, W_o, h, 0, K_old, V_old))
    n = len(cache)
    assert n == 5, _("a cache holding 4 tokens should hold 5 after one decode_step, not {n}").format(n=n)


def test_long_sequence(student, reference, rng):
    """12 tokens, 4 heads"""
    layer = reference.random_layer(rng, 12, 8, 4, 2, 3, 5)
    _decode_all(student, reference, *layer, 4, _("12 tokens with 4 heads (d_model=8, d_k=2, d_v=3, d_out=5)"))


def test_long_sequence_two_heads(student, reference, rng):
    """10 tokens, 2 heads"""
    layer = reference.random_layer(rng, 10, 6, 2, 3, 2, 4)
    _decode_all(student, reference, *layer, 2, _("10 tokens with 2 heads (d_model=6, d_k=3, d_v=2, d_out=4)"))
