"""Hidden tests for the cell `test_multi_head_laws`: laws of multi_head_attention.

* one head with W_o = I is lecture 9's single-head self-attention;
* without the mask the layer is permutation-equivariant: reordering the tokens
  reorders the outputs (and every head's weights) the same way;
* with the mask a token's output does not depend on the tokens after it;
* heads are independent: changing head 1's columns of W_q, W_k, W_v leaves
  head 0's weights alone.

The student's helpers are replaced by the reference ones, as in
test_multi_head_attention.
"""

import functools

import numpy as np

from gradekit.graders import check
from gradekit.graders.student import call
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-7)
HELPERS = ("causal_mask", "attention", "split_heads", "merge_heads")


def _runs(student, reference, cases):
    """The student's (output, weights) for each (X, W_q, W_k, W_v, W_o, h, causal, what) of ``cases``, the
    calls made at once (``map``), each checked against the reference (known routes named) in order: the
    first wrong one stops the test, as a loop of calls would."""
    layer = student.with_reference(*HELPERS)
    results = layer.multi_head_attention.map([call(X, W_q, W_k, W_v, W_o, h, causal=causal)
                                              for X, W_q, W_k, W_v, W_o, h, causal, what in cases])
    return [_compare(layer, reference, *case, got) for case, got in zip(cases, results)]


def _compare(layer, reference, X, W_q, W_k, W_v, W_o, h, causal, what, got):
    assert isinstance(got, (tuple, list)) and len(got) == 2, \
        _("multi_head_attention on {what}: should return the tuple (output, weights)").format(what=what)
    out, w = reference.multi_head_attention(X, W_q, W_k, W_v, W_o, h, causal=causal)
    routes = functools.cache(lambda: reference.mha_routes(X, W_q, W_k, W_v, W_o, h, causal))
    made = functools.partial(layer_call, layer, reference, X, W_q, W_k, W_v, W_o, h, causal)
    check.array(got[1], w, what=_("the weights on {what}").format(what=what), **TOL, call=made(1), mistakes=lambda: {
        **{k: v[1] for k, v in routes().items()},
        _("returned the heads' weights averaged: return one (n, n) table per head, shape (n_heads, n, n)"):
            w.mean(axis=0)})
    check.array(got[0], out, what=_("the output on {what}").format(what=what), **TOL, call=made(0),
                mistakes=lambda: {k: v[0] for k, v in routes().items()})
    return np.asarray(got[0], dtype=float), np.asarray(got[1], dtype=float)


def layer_call(layer, reference, X, W_q, W_k, W_v, W_o, h, causal, part):
    """The call, for the relation search (as in test_multi_head_attention)."""
    sizes = dict(n=X.shape[0], d_model=X.shape[1], n_heads=h, d_k=W_q.shape[1] // h, d_v=W_v.shape[1] // h,
                 d_out=W_o.shape[1])
    return check.Call(layer.multi_head_attention, reference.multi_head_attention,
                      dict(X=X, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o, n_heads=h), keywords=dict(causal=causal),
                      sizes=sizes, part=part, returns=(_("the output"), _("the weights")))


def test_one_head_is_single_head_attention(student, reference, rng):
    """one head with W_o = I is single-head self-attention"""
    cases = [(causal, reference.random_layer(rng, 6, 5, 1, 3, 4, 4)[:4]) for causal in (False, True)]
    layer = student.with_reference(*HELPERS)
    results = layer.multi_head_attention.map([call(X, W_q, W_k, W_v, np.eye(4), 1, causal=causal)
                                              for causal, (X, W_q, W_k, W_v) in cases])
    for (causal, (X, W_q, W_k, W_v)), got in zip(cases, results):
        assert isinstance(got, (tuple, list)) and len(got) == 2, \
            _("multi_head_attention with one head: should return the tuple (output, weights)")
        out, w = reference.single_head_attention(X, W_q, W_k, W_v, causal=causal)
        routes = lambda: reference.mha_routes(X, W_q, W_k, W_v, np.eye(4), 1, causal)
        check.array(got[1], w[None], what=_("the weights of one head with W_o = I (should be those of causal "
                                            "single-head self-attention, shape (1, n, n))") if causal else
                    _("the weights of one head with W_o = I (should be those of single-head self-attention, "
                      "shape (1, n, n))"), **TOL,
                    mistakes=lambda: {**{k: v[1] for k, v in routes().items()},
                                      _("returned the heads' weights averaged (or without the head axis): with one head the weights still have the shape (1, n, n)"): w})
        check.array(got[0], out, what=_("the output of one head with W_o = I (should be causal single-head "
                                        "self-attention)") if causal else
                    _("the output of one head with W_o = I (should be single-head self-attention)"), **TOL,
                    mistakes=lambda: {k: v[0] for k, v in routes().items()})


def test_reordering_tokens_reorders_outputs(student, reference, rng):
    """without the mask, reordering the tokens reorders the outputs the same way"""
    X, W_q, W_k, W_v, W_o = reference.random_layer(rng, 6, 5, 2, 3, 2, 4)
    order = rng.permutation(6)
    (out, w), (out_p, w_p) = _runs(student, reference, [(X, W_q, W_k, W_v, W_o, 2, False, _("6 tokens, 2 heads")),
                                                        (X[order], W_q, W_k, W_v, W_o, 2, False,
                                                         _("the same 6 tokens reordered"))])
    check.array(out_p, out[order], what=_("the output for reordered tokens, compared with the reordered output (it should be the same)"), **TOL, relations=False)
    check.array(w_p, w[:, order][:, :, order], what=_("every head's weights for reordered tokens, compared with the reordered weights (rows and columns)"), **TOL, relations=False)


def test_causal_output_ignores_later_tokens(student, reference, rng):
    """with the mask, a token's output does not depend on the tokens after it"""
    X, W_q, W_k, W_v, W_o = reference.random_layer(rng, 7, 4, 3, 2, 2, 5)
    changed = X.copy()
    changed[4:] = rng.normal(size=(3, 4))
    (full, unused), (other, unused) = _runs(student, reference, [
        (X, W_q, W_k, W_v, W_o, 3, True, _("7 tokens, 3 heads, causal")),
        (changed, W_q, W_k, W_v, W_o, 3, True, _("the same tokens with the last 3 replaced, causal"))])
    check.array(other[:4], full[:4], what=_("the causal outputs of the first 4 tokens after the last 3 tokens changed (they should not change)"), **TOL, relations=False)


def test_heads_are_independent(student, reference, rng):
    """changing head 1's projections leaves head 0's weights alone"""
    X, W_q, W_k, W_v, W_o = reference.random_layer(rng, 5, 6, 3, 2, 3, 4)
    W_q2, W_k2 = W_q.copy(), W_k.copy()
    W_q2[:, 2:4], W_k2[:, 2:4] = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    (unused, w), (unused, w2) = _runs(student, reference, [
        (X, W_q, W_k, W_v, W_o, 3, False, _("5 tokens, 3 heads")),
        (X, W_q2, W_k2, W_v, W_o, 3, False, _("the same layer with head 1's columns of W_q and W_k changed"))])
    check.array(w2[0], w[0], what=_("head 0's weights after head 1's columns of W_q and W_k changed (they should not change)"), **TOL, relations=False)
