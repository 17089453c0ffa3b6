"""Hidden tests for the cell `test_weighted_sum`: weighted_sum(weights, V) = weights @ V."""

import numpy as np

from gradekit.graders import check

TOL = dict(rtol=1e-5, atol=1e-6)


def _mistakes(reference, w, V):
    mistakes = {
        "returned the transpose: rows of the result should be queries, columns the value features":
            (w @ V).T,
        "mixed with the transposed weights (weightsᵀ V): row i of the weights belongs to query i":
            w.T @ V if w.shape[0] == w.shape[1] else None,
        "re-normalised the weights inside weighted_sum: use them as given": None,
        "applied a softmax to the weights inside weighted_sum: they are already weights": None,
    }
    sums = w.sum(axis=1, keepdims=True)
    if np.all(np.abs(sums) > 1e-3):
        mistakes["re-normalised the weights inside weighted_sum: use them as given"] = (w / sums) @ V
    mistakes["applied a softmax to the weights inside weighted_sum: they are already weights"] = \
        reference.softmax(w, axis=-1) @ V
    return {k: v for k, v in mistakes.items() if v is not None}


def _check(student, reference, w, V, what):
    got = student.weighted_sum(w, V)
    check.array(got, reference.weighted_sum(w, V), what=f"weighted_sum on {what}", **TOL,
                mistakes=lambda: _mistakes(reference, w, V))


def test_more_keys_than_queries(student, reference, rng):
    w = reference.softmax(rng.normal(size=(6, 7)), axis=-1)
    V = rng.normal(size=(7, 4))
    _check(student, reference, w, V, "weights of shape 6×7 and values of shape 7×4")


def test_square_weights(student, reference, rng):
    w = reference.softmax(2 * rng.normal(size=(5, 5)), axis=-1)
    V = rng.normal(size=(5, 3))
    _check(student, reference, w, V, "weights of shape 5×5 (not symmetric) and values of shape 5×3")


def test_weights_used_as_given(student, reference, rng):
    # weighted_sum is a plain weighted sum: it must not normalise the weights itself
    w = rng.uniform(0.1, 2.0, size=(3, 4))
    V = rng.normal(size=(4, 6))
    _check(student, reference, w, V, "un-normalised weights of shape 3×4 and values of shape 4×6")


def test_single_query(student, reference, rng):
    w = reference.softmax(rng.normal(size=(1, 8)), axis=-1)
    V = rng.normal(size=(8, 2))
    _check(student, reference, w, V, "one query (weights 1×8) and values of shape 8×2")


def test_your_hand_example(student, reference, params):
    w = np.array(params["hand_weights"])
    V = params["c"] * np.array([params["x1"], params["x2"]])
    _check(student, reference, w, V, "your hand example (weights 2×2, V = c·[x1; x2])")
