"""Hidden tests for the cell `test_weighted_sum`: weighted_sum(weights, V) = weights @ V."""

import numpy as np

from gradekit.graders import check, probes
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-6)


TRANSPOSED_RESULT = _("returned the transpose: rows of the result should be queries, columns the value features")
WEIGHTS_TRANSPOSED = _("mixed with the transposed weights (weightsᵀ V): row i of the weights belongs to query i")
RENORMALISED = _("re-normalised the weights inside weighted_sum: use them as given")
SOFTMAX_AGAIN = _("applied a softmax to the weights inside weighted_sum: they are already weights")
MEAN = _("ignored the weights: every row is the plain mean of the values")
SUM = _("ignored the weights: every row is the plain sum of the values")
ARGMAX = _("kept only the value with the largest weight instead of mixing all of them")


def _mistakes(reference, w, V):
    n_q, n_k = w.shape
    sums = w.sum(axis=1, keepdims=True)
    return {
        TRANSPOSED_RESULT: (w @ V).T,
        WEIGHTS_TRANSPOSED: w.T @ V if n_q == n_k else check.FAILS,
        RENORMALISED: (w / sums) @ V if np.all(np.abs(sums) > 1e-3) else None,
        SOFTMAX_AGAIN: reference.softmax(w, axis=-1) @ V,
        MEAN: np.repeat(V.mean(axis=0, keepdims=True), n_q, axis=0),
        SUM: np.repeat(V.sum(axis=0, keepdims=True), n_q, axis=0),
        ARGMAX: V[np.argmax(w, axis=1)],
    }


def _check(student, reference, w, V, what):
    got = student.weighted_sum(w, V)
    other_w = w[:, ::-1] * 0.5 + 0.5 / w.shape[1]  # other weights: the right answer changes
    call = check.Call(student.weighted_sum, reference.weighted_sum, dict(weights=w, V=V),
                      sizes=dict(n_q=w.shape[0], n_k=w.shape[1], d_v=V.shape[1]))
    check.array(got, reference.weighted_sum(w, V), what=_("weighted_sum on {what}").format(what=what), **TOL,
                call=call, mistakes=lambda: _mistakes(reference, w, V), probes=lambda: [
                    probes.unchanged_when(lambda: student.weighted_sum(other_w, V), got,
                                          subject=_("Your output"), changed=_("the weights")),
                    probes.equals(got, V, subject=_("Your output"), other_name=_("the value rows V")),
                    probes.identical_rows(got, subject=_("your output")),
                ])


def test_more_keys_than_queries(student, reference, rng):
    w = reference.softmax(rng.normal(size=(6, 7)), axis=-1)
    V = rng.normal(size=(7, 4))
    _check(student, reference, w, V, _("weights of shape 6×7 and values of shape 7×4"))


def test_square_weights(student, reference, rng):
    w = reference.softmax(2 * rng.normal(size=(5, 5)), axis=-1)
    V = rng.normal(size=(5, 3))
    _check(student, reference, w, V, _("weights of shape 5×5 (not symmetric) and values of shape 5×3"))


def test_weights_used_as_given(student, reference, rng):
    # weighted_sum is a plain weighted sum: it must not normalise the weights itself
    w = rng.uniform(0.1, 2.0, size=(3, 4))
    V = rng.normal(size=(4, 6))
    _check(student, reference, w, V, _("un-normalised weights of shape 3×4 and values of shape 4×6"))


def test_single_query(student, reference, rng):
    w = reference.softmax(rng.normal(size=(1, 8)), axis=-1)
    V = rng.normal(size=(8, 2))
    _check(student, reference, w, V, _("one query (weights 1×8) and values of shape 8×2"))


def test_your_hand_example(student, reference, params):
    w = np.array(params["hand_weights"])
    V = params["c"] * np.array([params["x1"], params["x2"]])
    _check(student, reference, w, V, _("your hand example (weights 2×2, V = c·[x1; x2])"))
