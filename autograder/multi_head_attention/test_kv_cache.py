"""Hidden tests for the cell `test_kv_cache`: the KVCache class.

append(k, v) with k (n_heads, d_k) and v (n_heads, d_v); keys (n_heads, t, d_k)
and values (n_heads, t, d_v) in order of arrival; len() = t. Several head
counts, d_k ≠ d_v, one token, and two caches that must not share storage.
"""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _


def _routes(tokens, expected_other=None):
    """What a cache built wrongly from these per-token (h, d) arrays returns."""
    stacked = np.array(tokens)                  # (t, h, d)
    t, h, d = stacked.shape
    routes = {
        _("the cache mixed up heads and time steps: reshaping (t, n_heads, d) to (n_heads, t, d) does not move the axes; stack along axis 1 or transpose"): stacked.reshape(h, t, d),
        _("stacked as (t, n_heads, d): the cache should hold one (t, d) table per head, shape (n_heads, t, d)"):
            stacked,
        _("flattened the heads into one row per token: keep one (t, d) table per head"): stacked.reshape(t, h * d),
        _("returned the tokens in reverse order: the oldest token comes first"): stacked[::-1].transpose(1, 0, 2),
        _("kept only the last token: every append adds one token to what is stored"):
            stacked[-1:].transpose(1, 0, 2),
    }
    if expected_other is not None:
        routes[_("keys and values swapped")] = expected_other
    return routes


def _fill(student, rng, h, d_k, d_v, t):
    cache = student.KVCache()
    ks = [rng.normal(size=(h, d_k)) for unused in range(t)]
    vs = [rng.normal(size=(h, d_v)) for unused in range(t)]
    for k, v in zip(ks, vs):
        cache.append(k, v)
    return cache, ks, vs


def _check_contents(cache, ks, vs, what):
    keys, values = np.stack(ks, axis=1), np.stack(vs, axis=1)
    other = values if keys.shape == values.shape else None
    check.array(cache.keys, keys, what=_("cache.keys after {what}").format(what=what), mistakes=lambda: _routes(ks, other))
    check.array(cache.values, values, what=_("cache.values after {what}").format(what=what),
                mistakes=lambda: _routes(vs, keys if other is not None else None))


def test_layout_and_order(student, rng):
    """3 heads, d_k=2, d_v=4, 5 tokens"""
    cache, ks, vs = _fill(student, rng, 3, 2, 4, 5)
    _check_contents(cache, ks, vs, _("5 appends with 3 heads (d_k=2, d_v=4)"))


def test_keys_and_values_of_equal_width(student, rng):
    """2 heads, d_k = d_v = 3, 4 tokens"""
    cache, ks, vs = _fill(student, rng, 2, 3, 3, 4)
    _check_contents(cache, ks, vs, _("4 appends with 2 heads (d_k=d_v=3)"))


def test_one_head_and_many_heads(student, rng):
    """1 head, then 8 heads"""
    for h, t in ((1, 3), (8, 6)):
        cache, ks, vs = _fill(student, rng, h, 2, 3, t)
        _check_contents(cache, ks, vs, _("{t} appends with {h} head(s)").format(t=t, h=h))


def test_one_token(student, rng):
    """a single token: shapes (n_heads, 1, d)"""
    cache, ks, vs = _fill(student, rng, 4, 3, 2, 1)
    _check_contents(cache, ks, vs, _("1 append with 4 heads"))


def test_length_counts_tokens(student, rng):
    """len(cache) is the number of tokens appended"""
    cache = student.KVCache()
    n = len(cache)
    assert n == 0, _("a new cache should hold 0 tokens, not {n}").format(n=n)
    for t in range(1, 5):
        cache.append(rng.normal(size=(3, 2)), rng.normal(size=(3, 5)))
        n = len(cache)
        counted_heads = n in (3 * t, 6 * t, 30 * t)
        assert n == t, (_("after {t} appends of 3 heads each, len(cache) should be {t} (tokens), not {n}: count "
                          "tokens, not heads or numbers") if counted_heads else
                        _("after {t} appends of 3 heads each, len(cache) should be {t} (tokens), not {n}")
                        ).format(t=t, n=n)


def test_two_caches_do_not_share_storage(student, rng):
    """a second cache starts empty"""
    first, unused, unused = _fill(student, rng, 2, 2, 2, 3)
    second = student.KVCache()
    n = len(second)
    assert n == 0, (_("a second cache should start empty, but it holds {n} token(s): keep the storage in the instance (self), not in the class").format(n=n))
    cache, ks, vs = _fill(student, rng, 2, 2, 2, 4)  # t != n_heads: a mixed-up layout cannot pass for a right one
    _check_contents(cache, ks, vs, _("4 appends to a cache made after another one was filled"))
    assert len(first) == 3, _("filling one cache should not change another")
