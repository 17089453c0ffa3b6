"""gradekit.graders.relations.composition: the right function again on its own result, c·t(R), a·R + b."""

import numpy as np

from relation_cases import RNG, cases, said


def right(x):
    return x @ x.T


def test_applied_again_to_its_own_result():
    inputs = [dict(x=RNG.normal(size=(n, n))) for n in (3, 4, 5)]
    text = said(cases(lambda x: right(right(x)), right, inputs))
    assert "applied again to its own result (in place of x)" in text, text


def test_a_function_of_the_right_values_times_a_factor():
    inputs = [dict(x=RNG.normal(size=(n, 2))) for n in (3, 4, 5)]
    text = said(cases(lambda x: np.square(right(x)) / 2, right, inputs))
    assert "the squares of the right ones, divided by 2" in text, text


def test_times_a_number_plus_another():
    inputs = [dict(x=RNG.normal(size=(n, 2))) for n in (3, 4, 5)]
    text = said(cases(lambda x: 1.5 * right(x) - 0.25, right, inputs))
    assert "multiplied by 1.5, minus 0.25" in text, text


def test_times_a_number_plus_a_constant_that_changes():
    inputs = [dict(x=RNG.normal(size=(n, 2))) for n in (3, 4, 5)]
    text = said(cases(lambda x: 0.9 * right(x) + 0.1 / len(x), right, inputs))
    assert "multiplied by 0.9, plus a constant that changes from check to check" in text, text
