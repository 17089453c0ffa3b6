"""Hidden tests for the cell `test_window_mask`: window_mask(n, w), the last w tokens or the whole past."""

import numpy as np

from gradekit.graders import check
from gradekit.graders.student import call
from gradekit.i18n import _

WIDER = _("the window holds w + 1 tokens: the token itself is one of its last w")
NARROWER = _("the window holds w - 1 tokens: count the token itself among its last w")
LOOKS_AHEAD = _("the window also looks ahead: a token may not see the tokens after it")
NO_DIAGONAL = _("a token must also see itself: keep the diagonal")
PREVIOUS_W = _("took the w tokens before the token, not the last w: the token itself is one of them")
UPPER = _("the wrong triangle: a token sees the keys before it (j <= i), not the keys after it")

# sizes and windows, the same for every student: w = 1 (the token alone), w >= n (the causal mask)
CASES = [(1, 1), (4, 1), (6, 2), (7, 3), (8, 5), (4, 4), (3, 9)]
CAUSAL = [1, 2, 5, 9]


def _mistakes(reference, n, w):
    right = reference.window_mask(n, w)
    out = {
        # with no window (w=None) a token looking ahead is no window's mistake: unknown there
        LOOKS_AHEAD: reference.band_mask(n, w) if w is not None else None,
        NO_DIAGONAL: right & ~np.eye(n, dtype=bool),
        UPPER: right.T,
    }
    if w is not None:
        out[WIDER] = reference.window_mask(n, w + 1)
        out[PREVIOUS_W] = reference.window_mask(n, w + 1) & ~np.eye(n, dtype=bool)
        out[NARROWER] = reference.window_mask(n, w - 1) if w > 1 else np.zeros((n, n), dtype=bool)
    return out


def _check(student, reference, cases):
    for (n, w), got in zip(cases, student.window_mask.map([call(n, w) for n, w in cases])):
        what = f"window_mask({n}, {w})"
        check.array(got, reference.window_mask(n, w), what=what, mistakes=lambda: _mistakes(reference, n, w),
                    call=check.Call(student.window_mask, reference.window_mask, dict(n=n, w=w)))


def test_your_window(student, reference, params):
    """your n and w"""
    _check(student, reference, [(params["n"], params["w"])])


def test_windows(student, reference):
    """windows of 1 to 9 tokens, some wider than the sequence"""
    _check(student, reference, CASES)


def test_no_window_is_causal(student, reference):
    """w=None: the causal mask"""
    for n, got in zip(CAUSAL, student.window_mask.map([call(n, None) for n in CAUSAL])):
        check.array(got, reference.window_mask(n), what=f"window_mask({n}, None)",
                    mistakes=lambda: _mistakes(reference, n, None),
                    call=check.Call(student.window_mask, reference.window_mask, dict(n=n, w=None)))
