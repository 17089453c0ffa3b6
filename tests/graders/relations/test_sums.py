"""gradekit.graders.relations.sums: the student's slices along an axis sum to one number, the right ones' do not."""

import numpy as np

from relation_cases import cases, said, softmax, tables


def test_normalised_down_the_columns():
    text = said(cases(lambda x, axis=-1: softmax(x, axis=0), softmax, tables((3, 4), (5, 6), (4, 7))))
    assert "each column of your values sums to 1, and the right ones' columns do not" in text, text
    text = said(cases(lambda x, axis=-1: 3 * softmax(x, axis=0), softmax, tables((3, 4), (5, 6), (4, 7))))
    assert "each column of your values sums to 3" in text, text


def test_nothing_is_said_where_the_right_ones_sum_alike_too():
    text = said(cases(lambda x, axis=-1: softmax(x[:, ::-1], axis), softmax, tables((3, 4), (5, 6), (4, 7))))
    assert "sums to" not in text, text
    # a value whose sums are not one number says nothing of them
    text = said(cases(lambda x, axis=-1: np.tanh(x), softmax, tables((3, 4), (5, 6))))
    assert "sums to" not in text, text
