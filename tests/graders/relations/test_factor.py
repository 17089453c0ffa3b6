"""gradekit.graders.relations.factor: S = c·R, c named when it is a simple number."""

import numpy as np

from relation_cases import cases, qk, said, scores, sizes_of

SHAPES = [(6, 7, 3), (5, 5, 8), (2, 4, 5), (3, 2, 6)]


def _said(student, shapes=SHAPES):
    return said([c for one in qk(*shapes) for c in cases(student, scores, [one], sizes=sizes_of(one))])


def test_a_size_is_named_with_its_values():
    assert "divided by n_k (= 7, 5, 4, 2) (on all 4 failed checks)" in _said(lambda Q, K: scores(Q, K) / K.shape[0])
    assert "multiplied by 2/sqrt(d_k) (d_k = 3, 8, 5, 6)" in _said(lambda Q, K: Q @ K.T / (K.shape[1] ** 1 / 2))


def test_a_size_off_by_one_and_a_constant():
    text = _said(lambda Q, K: Q @ K.T / np.sqrt(K.shape[1] - 1))
    assert "multiplied by sqrt(d_k/(d_k - 1)) (d_k = 3, 8, 5, 6)" in text, text
    assert "divided by ln 2" in _said(lambda Q, K: scores(Q, K) / np.log(2))
    text = _said(lambda Q, K: 0.61803398 * scores(Q, K))
    assert "multiplied by 0.62" in text and "0.618" not in text  # two digits: never a value the reference made


def test_a_simple_form_is_said_before_one_off_by_one():
    """d_k = 3 on every input: sqrt(d_k - 1)... no: 1/2 = 1/(d_k - 1) there; the constant is the simpler"""
    text = _said(lambda Q, K: scores(Q, K) / 2, [(6, 7, 3), (5, 5, 3), (2, 4, 3)])
    assert "divided by 2 " in text + " " and "d_k - 1" not in text, text


def test_the_opposite_sign_zero_and_a_factor_that_changes():
    assert "with the opposite sign" in _said(lambda Q, K: -scores(Q, K))
    assert "all zero" in _said(lambda Q, K: 0 * scores(Q, K))
    text = _said(lambda Q, K: scores(Q, K) * (1 + K[0, 0] ** 2))
    assert "with a factor that changes from check to check" in text, text


def test_one_input_that_disagrees_silences_it():
    inputs = qk(*SHAPES)
    checks = cases(lambda Q, K: scores(Q, K) / 2, scores, inputs[:2]) + \
        cases(lambda Q, K: scores(Q, K) / 3, scores, inputs[2:3])
    assert "divided by 2" not in said(checks)


def test_said_in_chinese():
    text = said([c for one in qk(*SHAPES) for c in cases(lambda Q, K: scores(Q, K) / K.shape[0], scores, [one],
                                                           sizes=sizes_of(one))], "zh")
    assert "你的结果是正确结果除以 n_k" in text, text
