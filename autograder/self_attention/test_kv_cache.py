"""Hidden tests for the cell `test_kv_cache`: the KVCache class (append, keys, values, len)."""

import numpy as np

from gradekit.graders import check

TOL = dict(rtol=1e-6, atol=1e-8)


def _stored(cache, K, V, what):
    """Check cache.keys / cache.values against the rows appended so far."""
    t = K.shape[0]
    check.array(cache.keys, K, what=f"cache.keys {what}", **TOL, mistakes={
        "keys and values swapped": V,
        "keys stored in reverse order (newest first)": K[::-1],
        "only the last key is kept": K[-1:],
        "only the last key is kept (as a 1-d array)": K[-1],
        "keys stored as one flat array instead of a (t, d_k) table": K.reshape(-1),
    })
    check.array(cache.values, V, what=f"cache.values {what}", **TOL, mistakes={
        "keys and values swapped": K,
        "values stored in reverse order (newest first)": V[::-1],
        "only the last value is kept": V[-1:],
        "only the last value is kept (as a 1-d array)": V[-1],
        "values stored as one flat array instead of a (t, d_v) table": V.reshape(-1),
    })
    assert t >= 1


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


def test_keys_and_values_in_order(student, rng):
    cache = student.KVCache()
    K, V = rng.normal(size=(6, 3)), rng.normal(size=(6, 4))
    for t in range(6):
        cache.append(K[t], V[t])
    _stored(cache, K, V, "after 6 appends of keys with d_k=3 and values with d_v=4")


def test_one_token_gives_a_table_with_one_row(student, rng):
    cache = student.KVCache()
    k, v = rng.normal(size=2), rng.normal(size=5)
    cache.append(k, v)
    _stored(cache, k[None, :], v[None, :], "after one append (should have shape (1, d_k) and (1, d_v))")


def test_caches_do_not_share_storage(student, rng):
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
    _stored(second, K[2:], V[2:], "of a second cache after one append (the first cache holds two other tokens)")
