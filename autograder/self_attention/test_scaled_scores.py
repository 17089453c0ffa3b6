"""Hidden tests for the cell `test_scaled_scores`: scaled_scores(Q, K) = Q K^T / sqrt(d_k)."""

import numpy as np

from gradekit.graders import check, probes
from gradekit.graders.student import call
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-6)


NO_SCALING = _("no scaling: the dot products should be divided by sqrt(d_k)")
DIV_DK = _("divided by d_k instead of sqrt(d_k)")
MUL_SQRT = _("multiplied by sqrt(d_k) instead of dividing")
TRANSPOSED = _("computed K Qᵀ instead of Q Kᵀ (rows should be queries, columns keys)")
SQRT_NQ = _("scaled by sqrt(number of queries) instead of sqrt(d_k), the key width")
SQRT_NK = _("scaled by sqrt(number of keys) instead of sqrt(d_k), the key width")
DIV_NK = _("divided by the number of keys instead of sqrt(d_k)")
SOFTMAX_INSIDE = _("applied the softmax inside scaled_scores: it should return the scaled scores themselves")
QUERIES_ONLY = _("compared the queries with themselves (Q Qᵀ): the keys are not used")


def _softmax_rows(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _mistakes(Q, K):
    """Every route on every input: where one coincides with the right answer or another route
    (d_k = number of queries, a symmetric table), that input is simply no evidence for it."""
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    raw = Q @ K.T
    return {
        NO_SCALING: raw,
        DIV_DK: raw / d_k,
        MUL_SQRT: raw * np.sqrt(d_k),
        TRANSPOSED: raw.T / np.sqrt(d_k),
        SQRT_NQ: raw / np.sqrt(n_q),
        SQRT_NK: raw / np.sqrt(n_k),
        DIV_NK: raw / n_k,
        SOFTMAX_INSIDE: _softmax_rows(raw / np.sqrt(d_k)),
        QUERIES_ONLY: Q @ Q.T / np.sqrt(d_k),
    }


def _check(student, reference, Q, K, what):
    _compare(student, reference, Q, K, what, student.scaled_scores(Q, K))


def _compare(student, reference, Q, K, what, got):
    other_K = K[::-1] * 1.5 + 0.5
    made = check.Call(student.scaled_scores, reference.scaled_scores, dict(Q=Q, K=K),
                      sizes=dict(n_q=Q.shape[0], n_k=K.shape[0], d_k=K.shape[1]))
    check.array(got, reference.scaled_scores(Q, K), what=_("scaled_scores on {what}").format(what=what), **TOL,
                call=made, mistakes=lambda: _mistakes(Q, K), probes=lambda: [
                    probes.unchanged_when(lambda: student.scaled_scores(Q, other_K), got,
                                          subject=_("Your table of scores"), changed=_("the keys")),
                ])


def test_more_keys_than_queries(student, reference, rng):
    Q, K = rng.normal(size=(6, 3)), rng.normal(size=(7, 3))
    _check(student, reference, Q, K, _("6 queries and 7 keys of width d_k=3"))


def test_square_table(student, reference, rng):
    Q, K = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    _check(student, reference, Q, K, _("5 queries and 5 keys of width d_k=3"))


def test_wide_keys(student, reference, rng):
    Q, K = rng.normal(size=(2, 8)), rng.normal(size=(4, 8))
    _check(student, reference, Q, K, _("2 queries and 4 keys of width d_k=8"))


def test_your_hand_example(student, reference, params):
    H = np.array([params["x1"], params["x2"]])
    _check(student, reference, H, H, _("your hand example (Q = K = [x1; x2], d_k=2)"))


def _shape_cases(count=8):
    """(n_q, n_k, d_k), the same for every student; each student's values are their own.

    The corners come first (one query and one key, six of each at width 7,
    and the lopsided pairs), then sizes drawn with a fixed seed.
    """
    cases = [(1, 1, 2), (6, 6, 7), (1, 6, 7), (6, 1, 2)]
    draw = np.random.default_rng(20261129)
    while len(cases) < count:
        case = (int(draw.integers(1, 7)), int(draw.integers(1, 7)), int(draw.integers(2, 8)))
        if case not in cases:
            cases.append(case)
    return cases


SHAPE_CASES = _shape_cases()


def test_random_shapes(student, reference, rng):
    """random numbers of queries and keys and key widths"""
    cases = [(rng.normal(size=(n_q, d_k)) * 2, rng.normal(size=(n_k, d_k))) for n_q, n_k, d_k in SHAPE_CASES]
    for (n_q, n_k, d_k), (Q, K), got in zip(SHAPE_CASES, cases, student.scaled_scores.map([call(Q, K) for Q, K in cases])):
        _compare(student, reference, Q, K, _("{n_q} query(ies) and {n_k} key(s) of width d_k={d_k}")
                 .format(n_q=n_q, n_k=n_k, d_k=d_k), got)
