"""Hidden tests for the cell `test_causal_mask`: causal_mask(n), True where query i may attend to key j <= i."""

import numpy as np

from gradekit.graders import check
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


def _check(student, reference, n):
    check.array(student.causal_mask(n), reference.causal_mask(n), what=f"causal_mask({n})",
                call=check.Call(student.causal_mask, reference.causal_mask, dict(n=n)), mistakes=lambda: _mistakes(n))


def test_small_sizes(student, reference):
    """n = 1, 2, 3"""
    for n in (1, 2, 3):
        _check(student, reference, n)


def test_larger_sizes(student, reference, params):
    """n = 7, 16 and the n of your notebook"""
    for n in (7, 16, params["n"]):
        _check(student, reference, n)
