"""Hidden tests for the cell `test_window_attention`: window_attention(Q, K, V, w).

Graded with the reference's window_mask in place of the student's, so that a
mistake in the mask is charged once, in `test_window_mask`; a mask the student
builds inline is graded here.
"""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-6, atol=1e-9)
AFTER = _("applied the mask after the softmax: the allowed weights no longer sum to 1")
ZERO = _("set the forbidden scores to 0 instead of -inf: a score of 0 still gets weight")
IGNORED = _("the mask was not applied: every token sees every token")
WIDER = _("the window holds w + 1 tokens: the token itself is one of its last w")
NARROWER = _("the window holds w - 1 tokens: count the token itself among its last w")
LOOKS_AHEAD = _("the window also looks ahead: a token may not see the tokens after it")
PREVIOUS_W = _("took the w tokens before the token, not the last w: the token itself is one of them")
NO_SCALING = _("no scaling: divide the scores by sqrt(d_k)")

# (n, d_k, d_v, w), the same for every student
SHAPES = [(1, 3, 2, 2), (5, 2, 3, 1), (6, 3, 2, 2), (8, 4, 3, 3), (7, 2, 2, None), (4, 3, 5, 9)]


def _mistakes(reference, Q, K, V, w):
    variant = reference.window_attention_variant
    n, d_k = len(Q), K.shape[1]
    out = {
        AFTER: variant(Q, K, V, w, mode="after"),
        ZERO: variant(Q, K, V, w, mode="zero"),
        IGNORED: variant(Q, K, V, w, mode="ignore"),
        LOOKS_AHEAD: variant(Q, K, V, w, mask=reference.band_mask(n, w)),
        NO_SCALING: variant(Q, K, V, w, scale=1.0) if d_k != 1 else None,
    }
    if w is not None:
        out[WIDER] = variant(Q, K, V, w + 1)
        out[PREVIOUS_W] = variant(Q, K, V, mask=reference.window_mask(n, w + 1) & ~np.eye(n, dtype=bool)) \
            if n > 1 else None   # token 0 would see nothing
        out[NARROWER] = variant(Q, K, V, w - 1) if w > 1 else None   # no key at all: NaN rows
    return out


def _check(student, reference, Q, K, V, w, what):
    sw = student.with_reference("window_mask")
    check.array(sw.window_attention(Q, K, V, w), reference.window_attention(Q, K, V, w), what=what, **TOL,
                mistakes=lambda: _mistakes(reference, Q, K, V, w),
                call=check.Call(sw.window_attention, reference.window_attention, dict(Q=Q, K=K, V=V),
                                keywords=dict(w=w)))


def test_your_tokens(student, reference, params):
    """your Q, K, V and w"""
    Q, K, V = (np.array(params[k]) for k in ("Q", "K", "V"))
    _check(student, reference, Q, K, V, params["w"], _("window_attention(Q, K, V, w) on your numbers"))


def test_shapes(student, reference, rng):
    """other sizes and windows, the causal mask (w=None) among them"""
    for n, d_k, d_v, w in SHAPES:
        Q, K, V = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
        _check(student, reference, Q, K, V, w,
               _("window_attention on {n} tokens, d_k = {d_k}, d_v = {d_v}, w = {w}").format(n=n, d_k=d_k, d_v=d_v, w=w))


def test_large_scores(student, reference, rng):
    """scores near 1000 in a window of 3"""
    Q, K, V = rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    Q[:, 0] = K[:, 0] = np.sqrt(1000.0 * np.sqrt(3))      # every score near 1000, differences about 1
    _check(student, reference, Q, K, V, 3, _("window_attention with scores near 1000, w = 3"))
