"""Hidden tests for the cell `test_merge_heads`: merge_heads(H), (h, n, d) -> (n, h·d).

The heads side by side in head order. Shapes with h, n and d all different,
one head, the student's own heads; and the law merge_heads(split_heads(X)) == X
(with the reference split_heads).
"""

import numpy as np

from gradekit.graders import check
from gradekit.graders.student import call
from gradekit.i18n import _

SHAPES = [(2, 5, 3), (3, 4, 2), (4, 3, 5), (1, 6, 4), (5, 2, 1), (3, 1, 2), (8, 9, 6)]


def _routes(H):
    h, n, d = H.shape
    return {
        _("reshaped without moving the head axis back: transpose (n_heads, n, d) to (n, n_heads, d) before the reshape"): H.reshape(n, h * d),
        _("the heads' columns interleaved: put each head's d columns side by side, head 0's first"):
            H.transpose(1, 2, 0).reshape(n, h * d),
        _("merged the heads in reverse order: head 0's columns come first"): np.concatenate(H[::-1], axis=-1),
        _("added the heads together instead of putting them side by side"): H.sum(axis=0),
        _("averaged the heads instead of putting them side by side"): H.mean(axis=0),
        _("stacked the heads as rows, (n_heads·n, d), instead of side by side"): H.reshape(h * n, d),
    }


def _check(student, reference, H, what):
    _compare(student, reference, H, what, student.merge_heads(H))


def _compare(student, reference, H, what, got):
    check.array(got, reference.merge_heads(H), what=_("merge_heads(H) on {what}").format(what=what),
                call=check.Call(student.merge_heads, reference.merge_heads, dict(H=H)), mistakes=lambda: _routes(H))


def _check_shapes(student, reference, rng, shapes):
    """merge_heads(H) on random heads of each of these shapes, the calls made at once (``map``)"""
    heads = [rng.normal(size=shape) for shape in shapes]
    for shape, H, got in zip(shapes, heads, student.merge_heads.map([call(H) for H in heads])):
        _compare(student, reference, H, _("H of shape {shape}").format(shape=shape), got)


def test_shapes_with_every_size_different(student, reference, rng):
    """n_heads, n and d all different"""
    _check_shapes(student, reference, rng, SHAPES[:3])


def test_corner_shapes(student, reference, rng):
    """one head, width one, one token, many heads"""
    _check_shapes(student, reference, rng, SHAPES[3:])


def test_your_heads(student, reference, params):
    """the heads of your notebook's X @ W_v"""
    X, W_v, h = np.array(params["X"]), np.array(params["W_v"]), params["n_heads"]
    _check(student, reference, reference.split_heads(X @ W_v, h), _("the heads of your X @ W_v"))


def test_merge_undoes_split(student, reference, rng):
    """merge_heads(split_heads(X)) gives X back"""
    cases = [(n, h, d, rng.normal(size=(n, h * d))) for n, h, d in ((5, 3, 2), (4, 2, 6))]
    heads = [reference.split_heads(X, h) for n, h, d, X in cases]
    for (n, h, d, X), H, got in zip(cases, heads, student.merge_heads.map([call(H) for H in heads])):
        check.array(got, X, what=_("merge_heads(split_heads(X, {h})) on X of shape ({n}, {number}) (it should give X back)").format(h=h, n=n, number=h * d),
                    call=check.Call(student.merge_heads, reference.merge_heads, dict(H=H)), mistakes=lambda: _routes(H))
