"""gradekit.graders.relations.transformed: the right function on t(an input)."""

import numpy as np

from gradekit.graders import check
from relation_cases import RNG, cases, said


def test_the_right_function_on_tanh_of_an_input():
    def layer(X, W):
        return X @ W

    inputs = [dict(X=RNG.normal(size=(n, d)), W=RNG.normal(size=(d, 3))) for n, d in ((4, 3), (5, 2), (3, 4))]
    text = said(cases(lambda X, W: np.tanh(X) @ W, layer, inputs))
    assert "what the right function gives for tanh(X)" in text, text
    text = said(cases(lambda X, W: np.abs(X) @ W, layer, inputs))
    assert "what the right function gives for |X|" in text, text
    text = said(cases(lambda X, W: np.clip(X, -1, 1) @ W, layer, inputs))
    assert "what the right function gives for clip(X, -1, 1)" in text, text


def _blockwise(Q, K, V, score):
    """softmax(score(Q, K)) V: the function passed in is called by the right function."""
    s = np.asarray(score(Q, K), dtype=float)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ V


def _scored(shapes):
    W = RNG.normal(size=(3, 3))
    score = lambda q, k: q @ W @ k.T  # noqa: E731 - the grader's own function, run in its process
    return [dict(Q=RNG.normal(size=(a, 3)), K=RNG.normal(size=(b, 3)), V=RNG.normal(size=(b, 2)), score=score)
            for a, b in shapes]


def test_what_a_function_passed_in_returns_transformed():
    inputs = _scored([(4, 6), (3, 5), (5, 7)])
    relu = lambda Q, K, V, score: _blockwise(Q, K, V, lambda q, k: np.maximum(score(q, k), 0))  # noqa: E731
    text = said(cases(relu, _blockwise, inputs))
    assert "what the right function gives for max(score(…), 0)" in text, text
    half = lambda Q, K, V, score: _blockwise(  # noqa: E731
        Q, K, V, lambda q, k: np.asarray(score(q, k)).astype(np.float16).astype(float))
    text = said(cases(half, _blockwise, inputs))
    assert "what the right function gives for float16(score(…))" in text, text


def test_the_students_own_function_passed_in_is_left_alone():
    from gradekit.graders.relations.inputs import Inputs

    class StudentsFunction:  # what a grader holds of the student's function: it carries their budget
        give_up = None

        def __call__(self, q, k):
            return q @ k.T

    inputs = Inputs(check.Call(None, _blockwise, dict(Q=np.ones((2, 2)), score=StudentsFunction(),
                                                      grader=lambda q, k: q @ k.T)))
    assert list(inputs.functions) == ["grader"]
