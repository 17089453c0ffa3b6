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


def log_sum_exp(X):
    m = X.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(X - m).sum(axis=1, keepdims=True)))[:, 0]


def _far_from_0(*shapes):
    """Tables whose columns sit far from 0 (near 800), a little apart: exp of them overflows."""
    return [dict(X=800.0 + RNG.normal(size=shape)) for shape in shapes]


def _one_far_score(*shapes):
    """Tables whose every other row holds one number near 750 (its exp overflows), the rest near 0."""
    out = []
    for shape in shapes:
        X = RNG.normal(size=shape)
        X[::2, 0] += 750.0
        out.append(dict(X=X))
    return out


def test_no_mean_condition_that_holds_only_because_centring_made_the_numbers_small():
    def unshifted(X):  # exp overflows on the rows near 750; right on any input of small numbers
        with np.errstate(over="ignore"):
            return np.log(np.exp(X).sum(axis=1))

    # centring X moves those rows to about +-375, where exp does not overflow: right there, but not
    # because the mean is 0 (X with mean 0 and rows at +-750 overflows as much)
    checks = [case(Mapped(unshifted), log_sum_exp, one) for one in _one_far_score((5, 3), (6, 2), (4, 4))]
    text = said(checks)
    assert "has mean 0 (" not in text and "has mean 0," not in text, text


def test_a_mean_condition_true_at_any_size_is_still_said():
    def sums_mean_too(X):  # right exactly when every column has mean 0, whatever its size
        return log_sum_exp(X) + X @ X.mean(axis=0)

    checks = [case(Mapped(sums_mean_too), log_sum_exp, one) for one in _far_from_0((5, 3), (6, 2), (4, 4))]
    text = said(checks)
    assert "your values are right when every column of X has mean 0" in text, text


def test_no_column_or_row_words_for_an_input_of_three_axes():
    def twice(A):
        return 2.0 * A

    def adds_the_mean_over_the_stack(A):  # right when the stack's first axis has mean 0: not a column
        return 2.0 * A + A.mean(axis=0, keepdims=True)

    inputs = [dict(A=RNG.normal(loc=2.0, size=shape)) for shape in ((2, 4, 3), (3, 5, 2), (2, 3, 3))]
    text = said([case(Mapped(adds_the_mean_over_the_stack), twice, one) for one in inputs])
    assert "column" not in text and "row" not in text, text


def test_a_value_that_overflowed_is_not_said_to_stay_the_same():
    def unshifted(X):  # inf on every row of these inputs, whatever X holds: not independent of X
        with np.errstate(over="ignore"):
            return np.log(np.exp(X).sum(axis=1))

    checks = [case(Mapped(unshifted), log_sum_exp, one) for one in _far_from_0((5, 3), (6, 2), (4, 4))]
    text = said(checks)
    assert "did not change" not in text, text
