"""Hidden tests for the cell `test_kv_cache_decode`: decode_step(x_t, W_q, W_k, W_v, cache).

decode_step must append the new token's key and value and then attend over
everything in the cache, so step t returns row t of causal self-attention.
The student's project_qkv, scaled_scores, softmax, weighted_sum and
self_attention are replaced by the reference ones; their KVCache is used.
"""

import numpy as np

from gradekit.graders import check

TOL = dict(rtol=1e-5, atol=1e-6)
HELPERS = ("project_qkv", "scaled_scores", "softmax", "weighted_sum", "self_attention")
LECTURE = np.array([0.330, 0.670])


def _attend(reference, q, K, V, scale=None):
    s = K @ q / (np.sqrt(K.shape[1]) if scale is None else scale)
    return reference.softmax(s) @ V


def _step_mistakes(reference, X, W_q, W_k, W_v, t):
    """Wrong outputs for the token X[t] when the cache held the keys/values of X[:t] before."""
    q, K, V = X[t] @ W_q, X[: t + 1] @ W_k, X[: t + 1] @ W_v
    out = {
        "ignores the cache: the new token attends only to itself (output = its own value)": V[t],
        "no scaling: divide the scores by sqrt(d_k)": _attend(reference, q, K, V, scale=1.0),
    }
    if t >= 1:
        out["the new token does not attend to itself: append k, v to the cache before attending"] = \
            _attend(reference, q, K[:t], V[:t])
    if t == 1:
        out["hard-coded the lecture's 0.330 / 0.670 weights"] = LECTURE @ V
    return {k: v for k, v in out.items() if v is not None}


def _decode_all(sa, reference, X, W_q, W_k, W_v, what):
    cache = sa.KVCache()
    expected, _ = reference.causal_self_attention(X, W_q, W_k, W_v)
    n = X.shape[0]
    for t in range(n):
        got = sa.decode_step(X[t], W_q, W_k, W_v, cache)
        check.array(got, expected[t], what=f"decode_step for token {t + 1} of {what} (row {t + 1} of causal "
                    "self-attention)", **TOL, mistakes=lambda: _step_mistakes(reference, X, W_q, W_k, W_v, t))
    return cache


def test_matches_causal_attention_row_by_row(student, reference, rng):
    sa = student.with_reference(*HELPERS)
    X = rng.normal(size=(6, 5))
    W_q, W_k, W_v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 4))
    _decode_all(sa, reference, X, W_q, W_k, W_v, "6 random tokens (d_model=5, d_k=3, d_v=4)")


def test_your_notebook_sequence_and_cache_contents(student, reference, params):
    sa = student.with_reference(*HELPERS)
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    cache = _decode_all(sa, reference, X, W_q, W_k, W_v, "your notebook's X")
    n = len(cache)
    assert n == X.shape[0], f"after {X.shape[0]} decode steps the cache should hold {X.shape[0]} tokens, not {n}"
    check.array(cache.keys, X @ W_k, what="cache.keys after decoding your X (should be X[t] @ W_k for every t)",
                **TOL, mistakes={"the cache holds the queries instead of the keys": X @ W_q})
    check.array(cache.values, X @ W_v, what="cache.values after decoding your X (should be X[t] @ W_v for every t)",
                **TOL, mistakes={"the cache holds the keys as values": X @ W_k})


def test_cache_holds_t_entries_after_t_steps(student, reference, rng):
    sa = student.with_reference(*HELPERS)
    X = rng.normal(size=(4, 3))
    W_q, W_k, W_v = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 5))
    cache = sa.KVCache()
    for t in range(4):
        sa.decode_step(X[t], W_q, W_k, W_v, cache)
        n = len(cache)
        assert n == t + 1, (f"after {t + 1} decode steps the cache should hold {t + 1} tokens, not {n}" +
                            (" (is the key and value appended more than once per step?)" if n > t + 1 else "") +
                            (" (decode_step should append the new token's key and value)" if n < t + 1 else ""))


def test_attends_over_what_the_cache_holds(student, reference, rng):
    """decode_step attends over what the cache already holds (filled by hand, as from a prompt)"""
    sa = student.with_reference(*HELPERS)
    d_model, d_k, d_v = 5, 3, 4
    W_q, W_k, W_v = rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))
    K_old, V_old = 2.0 * rng.normal(size=(4, d_k)), rng.normal(size=(4, d_v))
    cache = sa.KVCache()
    for k, v in zip(K_old, V_old):
        cache.append(k, v)
    x = rng.normal(size=d_model)
    q, k_new, v_new = x @ W_q, x @ W_k, x @ W_v
    K, V = np.vstack([K_old, k_new]), np.vstack([V_old, v_new])
    got = sa.decode_step(x, W_q, W_k, W_v, cache)
    check.array(got, _attend(reference, q, K, V),
                what="decode_step on a cache already holding 4 tokens (it should attend over all 5)", **TOL,
                mistakes=lambda: {
                    "ignores the cache: the new token attends only to itself (output = its own value)": v_new,
                    "the new token does not attend to itself: append k, v to the cache before attending":
                        _attend(reference, q, K_old, V_old),
                    "no scaling: divide the scores by sqrt(d_k)": _attend(reference, q, K, V, scale=1.0),
                })
    n = len(cache)
    assert n == 5, f"a cache holding 4 tokens should hold 5 after one decode_step, not {n}"


def test_your_hand_example(student, reference, params):
    sa = student.with_reference(*HELPERS)
    X = np.array([params["x1"], params["x2"]])
    I = np.eye(2)
    _decode_all(sa, reference, X, I, I, params["c"] * I, "your hand example (x1, x2, W_q = W_k = I, W_v = c·I)")
