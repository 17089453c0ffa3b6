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


def centred_mean(x, half):
    """The mean of x over the window of 2 half + 1 samples centred on each sample (zeros beyond the ends)."""
    padded = np.concatenate([np.zeros(half), x, np.zeros(half)])
    return np.convolve(padded, np.ones(2 * half + 1) / (2 * half + 1), mode="valid")


def trailing_mean(x, half):  # the window ends at the sample instead of being centred on it
    padded = np.concatenate([np.zeros(2 * half), x])
    return np.convolve(padded, np.ones(2 * half + 1) / (2 * half + 1), mode="valid")


def test_moved_as_many_places_as_an_input_says():
    rng = np.random.default_rng(11)
    inputs = [dict(x=rng.normal(size=n), half=half) for n, half in ((12, 2), (15, 3), (9, 4))]
    text = said(cases(trailing_mean, centred_mean, inputs))
    assert "moved half places along the last axis: your entry i + half is the right entry i" in text, text


def test_no_move_by_an_input_that_only_one_check_has_room_for():
    rng = np.random.default_rng(12)
    # half = 4 of 9 samples leaves 5 to compare; half = 7 of 9 leaves 2: too few to say a move there
    inputs = [dict(x=rng.normal(size=n), half=half) for n, half in ((9, 4), (9, 7))]
    checks = cases(lambda x, half: trailing_mean(x, half) + (half == 7), centred_mean, inputs)
    assert "places along" not in said(checks)
