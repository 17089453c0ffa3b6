"""Hidden tests for the cell `test_self_attention_permutation`: laws of self_attention.

Reordering the tokens reorders the outputs (permutation equivariance), and
identical tokens get identical outputs. The helpers are the reference ones, so
only self_attention itself is judged, and only these laws: whether its numbers
are right (weights summing to 1 included) is test_self_attention's to say --
one mistake costs its points once, not again here.
"""

import numpy as np

from gradekit.graders import check
from gradekit.graders.student import call
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-6)
HELPERS = ("project_qkv", "scaled_scores", "softmax", "weighted_sum")


def _run(sa, X, W_q, W_k, W_v, what):
    return _parts(sa.self_attention(X, W_q, W_k, W_v), X, W_v, what)


def _parts(got, X, W_v, what):
    """(output, weights) from what self_attention returned, their shapes checked"""
    assert isinstance(got, (tuple, list)) and len(got) == 2, \
        _("self_attention on {what}: should return the tuple (output, weights)").format(what=what)
    out = check.to_array(got[0], _("the output from self_attention on {what}").format(what=what))
    w = check.to_array(got[1], _("the weights from self_attention on {what}").format(what=what))
    n = X.shape[0]
    assert w.shape == (n, n), _("the weights from self_attention on {what}: shape {shape}, expected ({n}, {n})").format(what=what, shape=w.shape, n=n)
    assert out.shape == (n, W_v.shape[1]), \
        _("the output from self_attention on {what}: shape {shape}, expected ({n}, {value})").format(what=what, shape=out.shape, n=n, value=W_v.shape[1])
    return out, w


def _weights(rng, n=6, d_model=5, d_k=3, d_v=4):
    X = rng.normal(size=(n, d_model))
    return X, rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))


def test_reordering_tokens_reorders_outputs(student, rng):
    sa = student.with_reference(*HELPERS)
    X, W_q, W_k, W_v = _weights(rng)
    perms = [rng.permutation(X.shape[0]) for k in range(3)]
    results = iter(sa.self_attention.map([call(X, W_q, W_k, W_v)] + [call(X[perm], W_q, W_k, W_v) for perm in perms]))
    out, w = _parts(next(results), X, W_v, _("6 random tokens"))
    for perm in perms:
        what = _("the same 6 tokens reordered as {value}").format(value=perm.tolist())
        out_p, w_p = _parts(next(results), X[perm], W_v, what)
        check.array(out_p, out[perm], what=_("not permutation-equivariant (self_attention must not depend on the order of the tokens: no masks "
                                              "or position-dependent steps): the output on {what}, compared with the output "
                                              "rows reordered the same way").format(what=what), **TOL, relations=False)
        check.array(w_p, w[perm][:, perm], what=_("not permutation-equivariant (self_attention must not depend on the order of the "
                                                     "tokens: no masks or position-dependent steps): the weights on {what}, "
                                                     "compared with the weights with rows and columns reordered the same way")
                    .format(what=what), **TOL, relations=False)


def test_reversing_your_sequence(student, params):
    sa = student.with_reference(*HELPERS)
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    results = iter(sa.self_attention.map([call(X, W_q, W_k, W_v), call(X[::-1], W_q, W_k, W_v)]))
    out, w = _parts(next(results), X, W_v, _("your notebook's X"))
    out_r, w_r = _parts(next(results), X[::-1], W_v, _("your notebook's X in reverse order"))
    check.array(out_r, out[::-1], what=_("not permutation-equivariant (self_attention must not depend on the order of "
                                             "the tokens: no masks or position-dependent steps): the output on your X "
                                             "reversed, compared with the output rows reversed"), **TOL, relations=False)
    check.array(w_r, w[::-1, ::-1], what=_("not permutation-equivariant (self_attention must not depend on the order "
                                                   "of the tokens: no masks or position-dependent steps): the weights on "
                                                   "your X reversed"), **TOL, relations=False)


def test_identical_tokens_get_identical_outputs(student, rng):
    sa = student.with_reference(*HELPERS)
    X, W_q, W_k, W_v = _weights(rng, n=5, d_model=4, d_k=2, d_v=3)
    X[3] = X[0]
    out, unused = _run(sa, X, W_q, W_k, W_v, _("5 tokens of which the first and the fourth are equal"))
    check.array(out[3], out[0], what=_("not permutation-equivariant (self_attention must not depend on the order of the "
                                             "tokens: no masks or position-dependent steps): the outputs of two identical "
                                             "tokens (1st and 4th) should be equal"), **TOL, relations=False)
