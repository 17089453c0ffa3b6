"""Hidden tests for the cell `test_kv_cache`: the KVCache class (append, keys, values, len)."""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-6, atol=1e-8)


def _stored(reference, cache, K, V, what):
    """Check cache.keys and cache.values (one check: a route predicts both) against the rows appended so far."""
    check.arrays([cache.keys, cache.values], [K, V], what=[_("cache.keys {what}").format(what=what), _("cache.values {what}").format(what=what)], **TOL,
                 mistakes=lambda: reference.cache_routes(K, V))


def test_new_cache_is_empty(student):
    cache = student.KVCache()
    n = len(cache)
    assert n == 0, _("len(KVCache()) should be 0 for a new cache, got {n}").format(n=n)


def test_length_counts_appends(student, rng):
    cache = student.KVCache()
    K, V = rng.normal(size=(5, 3)), rng.normal(size=(5, 4))
    for t in range(5):
        cache.append(K[t], V[t])
        n = len(cache)
        assert n == t + 1, _("after {number} append(k, v) calls len(cache) should be {number}, got {n}").format(number=t + 1, n=n)


def test_keys_and_values_in_order(student, reference, rng):
    cache = student.KVCache()
    K, V = rng.normal(size=(6, 3)), rng.normal(size=(6, 4))
    for t in range(6):
        cache.append(K[t], V[t])
    _stored(reference, cache, K, V, _("after 6 appends of keys with d_k=3 and values with d_v=4"))


def test_one_token_gives_a_table_with_one_row(student, reference, rng):
    cache = student.KVCache()
    k, v = rng.normal(size=2), rng.normal(size=5)
    cache.append(k, v)
    _stored(reference, cache, k[None, :], v[None, :], _("after one append (should have shape (1, d_k) and (1, d_v))"))


def test_caches_do_not_share_storage(student, reference, rng):
    first, second = student.KVCache(), student.KVCache()
    K, V = rng.normal(size=(3, 3)), rng.normal(size=(3, 2))
    first.append(K[0], V[0])
    first.append(K[1], V[1])
    second.append(K[2], V[2])
    n1, n2 = len(first), len(second)
    shared = n1 == n2 and n1 >= 3
    assert (n1, n2) == (2, 1), (_("two separate caches: after 2 appends to the first and 1 to the second, their "
                                  "lengths are {n1} and {n2}, expected 2 and 1 -- two caches share their storage (a "
                                  "list created at class level instead of in __init__?)") if shared else
                                _("two separate caches: after 2 appends to the first and 1 to the second, their "
                                  "lengths are {n1} and {n2}, expected 2 and 1")).format(n1=n1, n2=n2)
    _stored(reference, second, K[2:], V[2:], _("of a second cache after one append (the first cache holds two other tokens)"))
