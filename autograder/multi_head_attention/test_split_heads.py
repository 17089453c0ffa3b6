"""Hidden tests for the cell `test_split_heads`: split_heads(X, n_heads), (n, h·d) -> (h, n, d).

Head i owns the d consecutive columns i·d … (i+1)·d − 1. Shapes with n, h and
d all different, one head, one column per head, the student's own
projections; and the law merge_heads(split_heads(X)) == X (with the reference
merge_heads).
"""

import numpy as np

from gradekit.graders import check
from gradekit.graders.student import call
from gradekit.i18n import _

# (tokens, heads, width of a head), the same for every student; the values are each student's own
SHAPES = [(5, 2, 3), (4, 3, 2), (3, 4, 5), (6, 1, 4), (2, 5, 1), (1, 3, 2), (9, 8, 6)]


def _routes(X, h):
    n, width = X.shape
    d = width // h
    routes = {
        _("split in the wrong order: head i takes the d consecutive columns from column i·d, not every n_heads-th column"): X.reshape(n, d, h).transpose(2, 0, 1),
        _("reshaped straight to (n_heads, n, d): reshape to (n, n_heads, d) first, then move the head axis to the front"): X.reshape(h, n, d),
        _("forgot to move the head axis to the front: (n, n_heads, d) instead of (n_heads, n, d)"):
            X.reshape(n, h, d),
        _("each head came out transposed: (n_heads, d, n) instead of (n_heads, n, d)"):
            X.reshape(n, h, d).transpose(1, 2, 0),
    }
    return routes


def _check_all(student, reference, cases):
    """split_heads(X, h) for each (X, h, what) of ``cases``, the calls made at once (``map``)"""
    for (X, h, what), got in zip(cases, student.split_heads.map([call(X, h) for X, h, what in cases])):
        check.array(got, reference.split_heads(X, h), what=_("split_heads(X, {h}) on {what}").format(h=h, what=what),
                    call=check.Call(student.split_heads, reference.split_heads, dict(X=X, n_heads=h)),
                    mistakes=lambda: _routes(X, h))


def test_shapes_with_every_size_different(student, reference, rng):
    """n, n_heads and d all different"""
    _check_all(student, reference, [(rng.normal(size=(n, h * d)), h, _("X of shape ({n}, {number})").format(n=n, number=h * d))
                                    for n, h, d in SHAPES[:3]])


def test_corner_shapes(student, reference, rng):
    """one head, one column per head, one token, many heads"""
    _check_all(student, reference, [(rng.normal(size=(n, h * d)), h, _("X of shape ({n}, {number})").format(n=n, number=h * d))
                                    for n, h, d in SHAPES[3:]])


def test_your_projections(student, reference, params):
    """your notebook's X @ W_q and X @ W_v"""
    X, h = np.array(params["X"]), params["n_heads"]
    _check_all(student, reference, [(X @ np.array(params[name]), h, _("your X @ {name}").format(name=name))
                                    for name in ("W_q", "W_v")])


def test_merge_undoes_split(student, reference, rng):
    """merge_heads(split_heads(X)) gives X back"""
    cases = [(n, h, d, rng.normal(size=(n, h * d))) for n, h, d in ((5, 3, 2), (4, 2, 6))]
    for (n, h, d, X), got in zip(cases, student.split_heads.map([call(X, h) for n, h, d, X in cases])):
        arr = check.to_array(got, _("split_heads(X, {h})").format(h=h))
        if arr.shape != (h, n, d):
            raise check.Mismatch(_("split_heads(X, {h}) on X of shape ({n}, {number}): shape {shape}, expected shape {value}").format(h=h, n=n, number=h * d, shape=arr.shape, value=(h, n, d)))
        routes = lambda: {k: reference.merge_heads(v) for k, v in _routes(X, h).items() if v.shape == (h, n, d)}
        check.array(reference.merge_heads(arr), X, what=_("merge_heads(split_heads(X, {h})) on X of shape ({n}, {number}) (it should give X back)").format(h=h, n=n, number=h * d), mistakes=routes)
