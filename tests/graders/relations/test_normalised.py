"""gradekit.graders.relations.normalised: the right values renormalised along an axis."""

import numpy as np

from relation_cases import cases, said, softmax, tables


def test_divided_by_their_sum_and_a_softmax_of_the_right_values():
    right = lambda x: np.exp(x)  # noqa: E731
    text = said(cases(lambda x: right(x) / right(x).sum(axis=1, keepdims=True), right, tables((3, 4), (5, 2))))
    assert "divided by their sum along the last axis" in text, text
    text = said(cases(lambda x, axis=-1: softmax(softmax(x, axis), axis), softmax, tables((3, 4), (5, 6))))
    assert "the softmax of the right ones along the last axis" in text, text


def test_logarithms_plus_a_constant_per_slice():
    text = said(cases(lambda x: x - x.max(axis=-1, keepdims=True), softmax, tables((3, 4), (5, 6))))
    assert "the logarithms of the right ones plus a constant for each slice along the last axis" in text, text


def test_running_sums():
    text = said(cases(lambda x: np.cumsum(2 * x, axis=0), lambda x: 2 * x, tables((4, 3), (5, 2))))
    assert "the running sums of the right ones along axis 0" in text, text
