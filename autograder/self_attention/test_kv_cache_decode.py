"""Hidden tests for the cell `test_kv_cache_decode`: decode_step(x_t, W_q, W_k, W_v, cache).

decode_step must append the new token's key and value and then attend over
everything in the cache, so step t returns row t of causal self-attention.
The student's project_qkv, scaled_scores, softmax, weighted_sum and
self_attention are replaced by the reference ones; their KVCache is used.
"""

import numpy as np

from gradekit.graders import check, probes
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-6)
HELPERS = ("project_qkv", "scaled_scores", "softmax", "weighted_sum", "self_attention")
LECTURE_WEIGHTS = np.array([0.330, 0.670])


IGNORES_CACHE = _("ignores the cache: the new token attends only to itself (output = its own value)")
NOT_ITSELF = _("the new token does not attend to itself: append k, v to the cache before attending")
NO_SCALING = _("no scaling: divide the scores by sqrt(d_k)")
DIV_DK = _("divided the cache scores by d_k instead of sqrt(d_k)")
NO_SOFTMAX = _("no softmax: the scaled scores themselves were used as weights")
UNIFORM = _("ignored the scores: every cached token got the same weight")
KEYS_AS_VALUES = _("mixed the cached keys instead of the cached values")
LECTURE = _("hard-coded the lecture's weights (its hand example), not computed from the scores")


def _attend(reference, q, K, V, scale=None, weights="softmax"):
    s = K @ q / (np.sqrt(K.shape[1]) if scale is None else scale)
    if weights == "raw":
        return s @ V
    if weights == "uniform":
        return V.mean(axis=0)
    return reference.softmax(s) @ V


def _step_mistakes(reference, cache, q, K, V):
    """Wrong outputs for a new token with query q when the cache should hold the keys K and values V,
    the new token's last (its key K[-1] and value V[-1] included).

    Only when the student's cache does hold them: over a wrong cache, the decoding step cannot be
    judged (the KVCache checks name the cache's mistake), so every route is undefined.
    """
    if not _holds(cache, K, V):
        return {}
    d_k = K.shape[1]
    return {
        IGNORES_CACHE: V[-1],
        NOT_ITSELF: _attend(reference, q, K[:-1], V[:-1]) if len(K) > 1 else None,
        NO_SCALING: _attend(reference, q, K, V, scale=1.0),
        DIV_DK: _attend(reference, q, K, V, scale=float(d_k)),
        NO_SOFTMAX: _attend(reference, q, K, V, weights="raw"),
        UNIFORM: _attend(reference, q, K, V, weights="uniform"),
        KEYS_AS_VALUES: _attend(reference, q, K, K),
        LECTURE: LECTURE_WEIGHTS @ V if len(K) == 2 else _attend(reference, q, K, V),  # else: right
    }


def _holds(cache, K, V):
    """Whether the student's cache holds exactly these keys and values (False if reading it fails)."""
    try:
        return check.close(cache.keys, K, **TOL) and check.close(cache.values, V, **TOL)
    except Exception:  # noqa: BLE001 - their cache raised: it does not hold them
        return False


def _probes(got, q, K, V):
    return lambda: [
        probes.equals(got, V[-1], subject=_("Your output"), other_name=_("the new token's own value"))
        if len(K) > 1 else None,
        probes.equals(got, V[0], subject=_("Your output"), other_name=_("the value of the first cached token"))
        if len(K) > 1 else None,
    ]


def _decode_all(sa, reference, X, W_q, W_k, W_v, what):
    cache = sa.KVCache()
    expected, unused = reference.causal_self_attention(X, W_q, W_k, W_v)
    n = X.shape[0]
    for t in range(n):
        got = sa.decode_step(X[t], W_q, W_k, W_v, cache)
        q, K, V = X[t] @ W_q, X[: t + 1] @ W_k, X[: t + 1] @ W_v
        check.array(got, expected[t], what=_("decode_step for token {number} of {what} (row {number} of causal self-attention)").format(number=t + 1, what=what), **TOL, step=t,
                    mistakes=lambda: _step_mistakes(reference, cache, q, K, V),
                    probes=_probes(got, q, K, V))
    return cache


def test_matches_causal_attention_row_by_row(student, reference, rng):
    sa = student.with_reference(*HELPERS)
    X = rng.normal(size=(6, 5))
    W_q, W_k, W_v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 4))
    _decode_all(sa, reference, X, W_q, W_k, W_v, _("6 random tokens (d_model=5, d_k=3, d_v=4)"))


def test_your_notebook_sequence_and_cache_contents(student, reference, params):
    sa = student.with_reference(*HELPERS)
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    cache = _decode_all(sa, reference, X, W_q, W_k, W_v, _("your notebook's X"))
    n = len(cache)
    assert n == X.shape[0], _("after {value} decode steps the cache should hold {value} tokens, not {n}").format(value=X.shape[0], n=n)
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    check.arrays([cache.keys, cache.values], [K, V], **TOL,
                 what=[_("cache.keys after decoding your X (should be X[t] @ W_k for every t)"),
                       _("cache.values after decoding your X (should be X[t] @ W_v for every t)")],
                 mistakes=lambda: {**reference.cache_routes(K, V),
                                   _("the cache holds the queries instead of the keys"): (Q, V),
                                   _("the cache holds the keys as values"): (K, K),
                                   _("the cache holds the values as keys"): (V, V)})


def test_cache_holds_t_entries_after_t_steps(student, reference, rng):
    sa = student.with_reference(*HELPERS)
    X = rng.normal(size=(4, 3))
    W_q, W_k, W_v = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 5))
    cache = sa.KVCache()
    for t in range(4):
        sa.decode_step(X[t], W_q, W_k, W_v, cache)
        n = len(cache)
        assert n == t + 1, (_("after {steps} decode steps the cache should hold {steps} tokens, not {n} (is the key "
                              "and value appended more than once per step?)") if n > t + 1 else
                            _("after {steps} decode steps the cache should hold {steps} tokens, not {n} (decode_step "
                              "should append the new token's key and value)")).format(steps=t + 1, n=n)


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
                what=_("decode_step on a cache already holding 4 tokens (it should attend over all 5)"), **TOL,
                mistakes=lambda: _step_mistakes(reference, cache, q, K, V), probes=_probes(got, q, K, V))
    n = len(cache)
    assert n == 5, _("a cache holding 4 tokens should hold 5 after one decode_step, not {n}").format(n=n)


def test_your_hand_example(student, reference, params):
    sa = student.with_reference(*HELPERS)
    X = np.array([params["x1"], params["x2"]])
    I = np.eye(2)
    _decode_all(sa, reference, X, I, I, params["c"] * I, _("your hand example (x1, x2, W_q = W_k = I, W_v = c·I)"))
