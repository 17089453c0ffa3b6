"""Hidden tests for the cell `test_softmax`: softmax(x, axis=-1) on any shape, along any axis."""

import numpy as np

from gradekit.graders import check, probes
from gradekit.graders.student import call
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-7)


def _mistakes(reference, x, axis):
    """The catalogue (reference.softmax_routes): names that do not depend on the input, so the
    evidence of all the inputs adds up."""
    return reference.softmax_routes(x, axis)


def _probes(got, axis):
    return lambda: [
        probes.slices_not_summing_to_one(got, axis=axis, subject=_("the slices of your result along `axis`")),
        probes.negative_entries(got, subject=_("your values")),
    ]


def _call(student, reference, x, axis=None):
    """The call, for the relation search: the axis is passed as the student's code was called."""
    keywords = {} if axis is None else {"axis": axis}
    return check.Call(student.softmax, reference.softmax, dict(x=x), keywords=keywords)


def _check_axes(student, reference, x, axes, what):
    """softmax(x, axis=a) for each axis a of ``axes``, the calls made at once (``map``)"""
    for axis, got in zip(axes, student.softmax.map([call(x, axis=axis) for axis in axes])):
        check.array(got, reference.softmax(x, axis=axis), what=_("softmax(x, axis={axis}) on {what}").format(axis=axis, what=what), **TOL,
                    call=_call(student, reference, x, axis), mistakes=lambda: _mistakes(reference, x, axis),
                    probes=_probes(got, axis))


def test_one_dimensional(student, reference, rng):
    x = rng.normal(size=7) * 2
    got = student.softmax(x)
    check.array(got, reference.softmax(x), what=_("softmax(x) on a vector of length 7"), **TOL,
                call=_call(student, reference, x), mistakes=lambda: _mistakes(reference, x, -1), probes=_probes(got, -1))


def test_default_axis_is_last(student, reference, rng):
    x = rng.normal(size=(3, 4, 5))
    got = student.softmax(x)
    check.array(got, reference.softmax(x, axis=-1), what=_("softmax(x) with the default axis on a 3×4×5 input"),
                **TOL, call=_call(student, reference, x), mistakes=lambda: _mistakes(reference, x, -1),
                probes=_probes(got, -1))


def test_every_axis_of_a_3d_input(student, reference, rng):
    x = rng.normal(size=(3, 4, 5)) * 2
    _check_axes(student, reference, x, (0, 1, 2, -2), _("a 3×4×5 input"))


def test_every_axis_of_a_4d_batch(student, reference, rng):
    x = rng.normal(size=(2, 3, 4, 5)) * 2
    _check_axes(student, reference, x, (0, 1, 2, 3, -1), _("a 2×3×4×5 batch"))


def test_square_score_table_rows_and_columns(student, reference, rng):
    # square, so a missing keepdims broadcasts silently instead of failing
    x = rng.normal(size=(4, 4)) * 2
    _check_axes(student, reference, x, (-1, 0), _("a 4×4 table of scores"))


def _law_cases(count=8):
    """Shapes and axes for the laws, the same for every student; each student's values are their own.

    The corners come first (one element, one axis of 5, a 4-d array of ones
    along its first axis, 5×5×5×5 along its last), then shapes of 1 to 4 axes
    of length 1 to 5 with an axis counted from either end, drawn with a fixed seed.
    """
    cases = [((1,), 0), ((5,), -1), ((1, 1, 1, 1), -4), ((5, 5, 5, 5), 3)]
    draw = np.random.default_rng(20261129)
    while len(cases) < count:
        ndim = int(draw.integers(1, 5))
        shape = tuple(int(n) for n in draw.integers(1, 6, size=ndim))
        case = (shape, int(draw.integers(-ndim, ndim)))
        if case not in cases:
            cases.append(case)
    return cases


LAW_CASES = _law_cases()


def test_laws_sum_to_one_and_shift_invariance(student, reference, rng):
    """random shapes and axes: each slice sums to 1 and adding a constant to it changes nothing"""
    cases = []
    for shape, axis in LAW_CASES:
        x = rng.normal(size=shape) * 3
        # shift every slice along the axis by its own constant
        shift_shape = list(shape)
        shift_shape[axis] = 1
        cases.append((shape, axis, x, x + rng.uniform(-20, 20, size=shift_shape)))
    results = iter(student.softmax.map([call(v, axis=axis) for shape, axis, x, shifted in cases for v in (x, shifted)]))
    for shape, axis, x, shifted in cases:
        what = _("an input of shape {shape}").format(shape=shape)
        got = next(results)
        check.array(got, reference.softmax(x, axis=axis), what=_("softmax(x, axis={axis}) on {what}").format(axis=axis, what=what), **TOL,
                    call=_call(student, reference, x, axis), mistakes=lambda: _mistakes(reference, x, axis),
                    probes=_probes(got, axis))
        got_shifted = next(results)
        check.array(got_shifted, got, what=_("softmax(x + c, axis={axis}) on {what}, compared with softmax(x) (adding a constant to a slice should not change its weights)").format(axis=axis, what=what), **TOL,
                    relations=False)  # a law: compared with the student's own softmax(x), not the right one
