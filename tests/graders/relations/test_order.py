"""gradekit.graders.relations.order: the right values in another order."""

import numpy as np
import pytest

from relation_cases import cases, said, tables


def right(x):
    return np.cumsum(x, axis=0)


@pytest.mark.parametrize("student, sentence", [
    (lambda x: right(x)[::-1], "in reverse order along axis 0"),
    (lambda x: np.roll(right(x), -1, axis=0), "moved one place along axis 0: your entry i is the right entry i + 1"),
    (lambda x: right(x)[:, [2, 0, 3, 1]], "the right columns in another order"),
    (lambda x: right(x).reshape(-1, 2), "in the right order, but in other shapes ("),
])
def test_the_right_values_reordered(student, sentence):
    text = said(cases(student, right, tables((5, 4), (6, 4), (3, 4))))
    assert sentence in text, text


def test_the_transpose():
    text = said(cases(lambda x: right(x).T, right, tables((5, 4), (6, 3))))
    assert "the transpose of the right ones" in text, text
