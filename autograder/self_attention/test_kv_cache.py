"""Hidden tests for the cell `test_kv_cache`: the KVCache class (append, keys, values, len)."""

import numpy as np

from gradekit.graders import check

TOL = dict(rtol=1e-6, atol=1e-8)


def _stored(reference, cache, K, V, what):
    """Check cache.keys and cache.values (one check: a route predicts both) against the rows appended so far."""
    check.arrays([cache.keys, cache.values], [K, V], what=[f"cache.keys {what}", f"cache.values {what}"], **TOL,
                 mistakes=lambda: reference.cache_routes(K, V))


def test_new_cache_is_empty(student):
    cache = student.KVCache()
    n = len(cache)
    assert n == 0, f"len(KVCache()) should be 0 for a new cache, got {n}"


def test_length_counts_appends(student, rng):
    cache = student.KVCache()
    K, V = rng.normal(size=(5, 3)), rng.normal(size=(5, 4))
    for t in range(5):
        cache.append(K[t], V[t])
        n = len(cache)
        assert n == t + 1, f"after {t + 1} append(k, v) calls len(cache) should be {t + 1}, got {n}"


def test_keys_and_values_in_order(student, reference, rng):
    cache = student.KVCache()
    K, V = rng.normal(size=(6, 3)), rng.normal(size=(6, 4))
    for t in range(6):
        cache.append(K[t], V[t])
    _stored(reference, cache, K, V, "after 6 appends of keys with d_k=3 and values with d_v=4")


def test_one_token_gives_a_table_with_one_row(student, reference, rng):
    cache = student.KVCache()
    k, v = rng.normal(size=2), rng.normal(size=5)
    cache.append(k, v)
    _stored(reference, cache, k[None, :], v[None, :], "after one append (should have shape (1, d_k) and (1, d_v))")


def test_caches_do_not_share_storage(student, reference, rng):
    first, second = student.KVCache(), student.KVCache()
    K, V = rng.normal(size=(3, 3)), rng.normal(size=(3, 2))
    first.append(K[0], V[0])
    first.append(K[1], V[1])
    second.append(K[2], V[2])
    n1, n2 = len(first), len(second)
    shared = "two caches share their storage (a list created at class level instead of in __init__?)"
    assert (n1, n2) == (2, 1), (f"two separate caches: after 2 appends to the first and 1 to the second, "
                                f"their lengths are {n1} and {n2}, expected 2 and 1" +
                                (f" -- {shared}" if n1 == n2 and n1 >= 3 else ""))
    _stored(reference, second, K[2:], V[2:], "of a second cache after one append (the first cache holds two other tokens)")
