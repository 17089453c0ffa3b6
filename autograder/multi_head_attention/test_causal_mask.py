"""Hidden tests for the cell `test_causal_mask`: causal_mask(n), True where query i may attend to key j <= i."""

import numpy as np

from gradekit.graders import check
from gradekit.graders.student import call
from gradekit.i18n import _


def _mistakes(n):
    ones = np.ones((n, n), dtype=bool)
    return {
        _("the wrong triangle: query i may see keys 0 … i (on and below the diagonal), not the keys after it"):
            np.triu(ones),
        _("a token must also see itself: keep the diagonal"): np.tril(ones, k=-1),
        _("True and False swapped: True should mark the keys a query may attend to"): ~np.tril(ones),
        _("an additive mask (0 and -inf): return booleans, True where attending is allowed"):
            np.where(np.tril(ones), 0.0, -np.inf),
    }


def _check_sizes(student, reference, sizes):
    """causal_mask(n) for each n of ``sizes``, the calls made at once (``map``)"""
    for n, got in zip(sizes, student.causal_mask.map([call(n) for n in sizes])):
        check.array(got, reference.causal_mask(n), what=f"causal_mask({n})",
                    call=check.Call(student.causal_mask, reference.causal_mask, dict(n=n)), mistakes=lambda: _mistakes(n))


def test_small_sizes(student, reference):
    """n = 1, 2, 3"""
    _check_sizes(student, reference, (1, 2, 3))


def test_larger_sizes(student, reference):
    """n = 7 and 16"""
    _check_sizes(student, reference, (7, 16))


def test_your_n(student, reference, params):
    """the n of your notebook"""
    _check_sizes(student, reference, (params["n"],))
