"""Hidden tests for the cell `test_softmax_stability`: softmax must not overflow on huge scores."""

import numpy as np

from gradekit.graders import check
from gradekit.graders.student import call
from gradekit.i18n import _

# float32 answers lose ~1e-4 of the scores' 1e3 magnitude; still correct
TOL = dict(rtol=1e-3, atol=1e-6)


def _check(student, reference, x, axis, what):
    """The same catalogue as test_softmax: on these inputs the unstable routes differ from the right answer."""
    _compare(student, reference, x, axis, what, student.softmax(x, axis=axis))


def _compare(student, reference, x, axis, what, got):
    check.array(got, reference.softmax(x, axis=axis), what=_("softmax(x, axis={axis}) on {what}").format(axis=axis, what=what), **TOL,
                call=check.Call(student.softmax, reference.softmax, dict(x=x), keywords=dict(axis=axis)),
                mistakes=lambda: reference.softmax_routes(x, axis))


def test_your_big_vector(student, reference, params):
    big = np.array(params["big"])
    _check(student, reference, big, -1, _("your vector `big` (values near 1000)"))


def test_large_positive_scores(student, reference, rng):
    x = 1000.0 + 3.0 * rng.normal(size=(4, 6))
    _check(student, reference, x, -1, _("a 4×6 table of scores near +1000"))


def test_large_negative_scores(student, reference, rng):
    x = -1000.0 + 3.0 * rng.normal(size=(5, 3))
    _check(student, reference, x, -1, _("a 5×3 table of scores near -1000"))


def test_rows_at_very_different_levels(student, reference, rng):
    offsets = np.array([[-1000.0], [0.0], [1000.0], [500.0]])
    x = offsets + 2.0 * rng.normal(size=(4, 5))
    cases = [(x, -1, _("rows of scores near -1000, 0, +1000 and +500")),
             (x.T, 0, _("columns of scores near -1000, 0, +1000 and +500"))]
    for (v, axis, what), got in zip(cases, student.softmax.map([call(v, axis=axis) for v, axis, what in cases])):
        _compare(student, reference, v, axis, what, got)


def test_huge_spread_in_one_row(student, reference, rng):
    x = np.array([1000.0, -1000.0, 0.0, 995.0]) + rng.uniform(-1, 1, size=4)
    _check(student, reference, x, -1, _("a vector mixing +1000, -1000, 0 and 995"))


def test_batched_large_scores_along_middle_axis(student, reference, rng):
    x = 800.0 * np.sign(rng.normal(size=(2, 1, 3))) + 4.0 * rng.normal(size=(2, 5, 3))
    _check(student, reference, x, 1, _("a 2×5×3 batch of scores near ±800"))
