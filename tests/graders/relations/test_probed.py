"""gradekit.graders.relations.probed and keyword: the engine's own questions -- the student's function
on inputs derived from the check's, one thing changed at a time; the reference with a setting changed."""

import numpy as np

from relation_cases import RNG, case, said, softmax


class Mapped:
    """A student's function that maps (as ``student.f`` does)."""

    def __init__(self, function):
        self.function, self.__name__ = function, function.__name__

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)

    def map(self, calls):
        return [self.function(*c.args, **c.kwargs) for c in calls]


def covariance(X):
    centred = X - X.mean(axis=0)
    return centred.T @ centred / (len(X) - 1)


def variance(X):
    return ((X - X.mean(axis=0)) ** 2).sum(axis=0) / (len(X) - 1)


def _tables(*shapes):
    return [dict(X=RNG.normal(loc=3.0, scale=2.0, size=shape)) for shape in shapes]


def test_right_when_every_column_has_mean_0():
    def grand_mean(X):
        centred = X - X.mean()
        return centred.T @ centred / (len(X) - 1)

    text = said([case(Mapped(grand_mean), covariance, one) for one in _tables((6, 3), (9, 2), (5, 4))])
    assert "your values are right when every column of X has mean 0" in text, text


def test_right_with_the_first_two_rows_only():
    def median_centred(X):
        return ((X - np.median(X, axis=0)) ** 2).sum(axis=0) / (len(X) - 1)

    text = said([case(Mapped(median_centred), variance, one) for one in _tables((7, 3), (9, 2), (6, 4))])
    assert "your values are right when the inputs keep only their first 2 rows" in text, text


def test_values_that_change_with_the_order_of_the_rows():
    def skips_first(X):
        return ((X[1:] - X.mean(axis=0)) ** 2).sum(axis=0) / (len(X) - 1)

    text = said([case(Mapped(skips_first), variance, one) for one in _tables((7, 3), (9, 2), (6, 4))])
    assert "your values change when the rows of X are put in another order; the right ones do not" in text, text


def test_the_other_axis_of_an_axis_argument():
    def other_axis(x, axis=-1):
        return softmax(x, axis=0)

    inputs = [dict(x=RNG.normal(size=shape)) for shape in ((3, 4), (5, 2), (4, 6))]
    text = said([case(Mapped(other_axis), softmax, one, keywords=dict(axis=1)) for one in inputs])
    assert "what the right function gives for axis = 0" in text, text


def test_nothing_is_said_of_a_probe_where_the_student_is_not_right():
    def always_wrong(X):
        return variance(X) + 1.0

    text = said([case(Mapped(always_wrong), variance, one) for one in _tables((7, 3), (9, 2), (6, 4))])
    assert "right when" not in text and "plus 1" in text, text
