"""gradekit.graders.relations.elementwise: S = t(R) for an elementwise t."""

import numpy as np
import pytest

from relation_cases import cases, said, tables


def right(x):
    return x * 1.5 - 0.2


@pytest.mark.parametrize("t, sentence", [
    (np.abs, "the absolute values of the right ones"),
    (np.square, "the squares of the right ones"),
    (lambda r: np.maximum(r, 0), "the right ones where these are positive, and 0 elsewhere"),
    (lambda r: np.minimum(r, 0), "the right ones where these are negative, and 0 elsewhere"),
    (np.tanh, "the tanh of the right ones"),
    (lambda r: 1 / (1 + np.exp(-r)), "the sigmoid, 1 / (1 + exp(-r)), of the right ones r"),
    (np.sign, "the signs (-1, 0 or 1) of the right ones"),
    (np.exp, "the exponentials (exp) of the right ones"),
    (lambda r: np.round(r, 2), "the right ones rounded to 2 decimals"),
    (np.round, "the right ones rounded to whole numbers"),
    (lambda r: r.astype(int).astype(float), "with their decimals cut off (rounded toward 0)"),
    (lambda r: (100 * r).astype(int) / 100, "cut off after 2 decimals (rounded toward 0)"),
    (lambda r: np.logaddexp(0, r), "the softplus, log(1 + exp(r)), of the right ones r"),
    (lambda r: 0.5 * r * (1 + np.tanh(0.7978845608 * (r + 0.044715 * r**3))), "the GELU (its tanh approximation)"),
    (lambda r: np.maximum(r, 0.5), "where the right values are below 0.5, yours are 0.5"),
    (lambda r: np.clip(r, -1.0, 2.5), "clipped to the range [-1, 2.5]"),
])
def test_a_function_of_each_right_value(t, sentence):
    text = said(cases(lambda x: t(right(x)), right, tables((4, 5), (3, 6), (7,))))
    assert sentence in text, text


def test_a_function_that_fails_on_one_input_is_not_said():
    inputs = tables((4, 5), (3, 6), (6,))
    checks = cases(lambda x: np.tanh(right(x)), right, inputs[:2]) + cases(lambda x: np.abs(right(x)), right, inputs[2:])
    assert "tanh" not in said(checks)


def test_said_in_chinese():
    text = said(cases(lambda x: np.maximum(right(x), 0), right, tables((4, 5), (3, 6))), "zh")
    assert "你的结果在正确结果为正的位置等于正确结果，其余位置是 0" in text, text


def test_no_sign_or_rounding_of_one_number_a_constant_answer_would_match():
    def cosine(a, b):
        return float(a @ b / np.sqrt((a @ a) * (b @ b)))

    def cosine_of_a_with_itself(a, b):  # always 1: the signs of right values that happen to be positive
        return cosine(a, a)

    rng = np.random.default_rng(7)
    inputs = []
    for n in (5, 8, 6, 4):
        a = rng.normal(size=n)
        inputs.append(dict(a=a, b=a + 0.4 * rng.normal(size=n)))  # cosines between 0.5 and 1
    checks = cases(cosine_of_a_with_itself, cosine, inputs)
    text = said(checks)
    assert "signs" not in text and "rounded" not in text, text


def test_the_signs_of_one_number_a_student_wrote_are_said_as_they_are():
    text = said(cases(lambda x: np.sign(right(x)), right, tables((4, 5), (3, 6))))
    assert "the signs (-1, 0 or 1) of the right ones" in text, text
