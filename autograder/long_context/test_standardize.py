"""Hidden tests for the cell `test_standardize`: standardize(x) on other shapes and numbers.

The test cell's points are shared by the tests below (``@pytest.mark.weight(w)``
weighs one). Fixtures: ``student`` (calls into the student's code, in the
sandbox), ``reference`` (solutions/long_context/reference.py), ``params`` (the
student's numbers) and ``rng`` (seeded per student and test). Texts a student
reads are marked with ``_`` for translation (``gradekit translate``; the docs'
guides "Two languages" and "The grader API", which shows every check).
"""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-6, atol=1e-8)
# shapes are drawn once, the same for every student; the values are the student's own
SHAPES = [(1, 6), (3, 5), (5, 4), (2, 8)]


def _mistakes(x):
    """The values the classic wrong routes give: a wrong answer that matches one is named."""
    centred = x - x.mean(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        return {
            _("divided by the variance instead of the standard deviation"): centred / x.var(axis=-1, keepdims=True),
            _("forgot to subtract the mean"): x / x.std(axis=-1, keepdims=True),
            _("standardized the columns instead of the rows"):
                (x - x.mean(axis=0, keepdims=True)) / x.std(axis=0, keepdims=True),
        }


def _check(student, reference, x, what):
    check.array(student.standardize(x), reference.standardize(x), what=_("standardize(x) on {what}").format(what=what), **TOL,
                mistakes=lambda: _mistakes(x))


def test_your_numbers(student, reference, params):
    """your own x"""
    _check(student, reference, np.array(params["x"]), _("your x"))


def test_other_shapes(student, reference, rng):
    """other shapes"""
    for shape in SHAPES:
        x = rng.normal(loc=rng.normal() * 5, scale=3.0, size=shape)
        _check(student, reference, x, _("an input of shape {shape}").format(shape=shape))
