"""Hidden tests for the cell `test_multi_head_attention`: multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, causal).

The student's causal_mask, attention, split_heads and merge_heads are replaced
by the reference ones, so only a mistake inside the layer itself costs points
here. Sizes all different (d_model, n_heads·d_k, n_heads·d_v, d_out), the
standard square layer with 1, 2, 4 and 8 heads, causal and not, the student's
own layer, one token, many tokens.
"""

import functools

import numpy as np

from gradekit.graders import check
from gradekit.graders.student import call
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-7)
HELPERS = ("causal_mask", "attention", "split_heads", "merge_heads")


def check_layer(student, reference, X, W_q, W_k, W_v, W_o, h, causal, what):
    """Compare (output, weights) with the reference; name the route a wrong answer took."""
    layer = student.with_reference(*HELPERS)
    return compare_layer(layer, reference, X, W_q, W_k, W_v, W_o, h, causal, what,
                         layer.multi_head_attention(X, W_q, W_k, W_v, W_o, h, causal=causal))


def check_layers(student, reference, cases):
    """check_layer for each (X, W_q, W_k, W_v, W_o, h, causal, what) of ``cases``, the calls made at once (``map``)"""
    layer = student.with_reference(*HELPERS)
    results = layer.multi_head_attention.map([call(X, W_q, W_k, W_v, W_o, h, causal=causal)
                                              for X, W_q, W_k, W_v, W_o, h, causal, what in cases])
    for case, got in zip(cases, results):
        compare_layer(layer, reference, *case, got)


def compare_layer(layer, reference, X, W_q, W_k, W_v, W_o, h, causal, what, got):
    """Compare what ``layer``'s multi_head_attention returned with the reference's (output, weights)."""
    what = _("{what}, causal").format(what=what) if causal else what
    assert isinstance(got, (tuple, list)) and len(got) == 2, \
        _("multi_head_attention on {what}: should return the tuple (output, weights)").format(what=what)
    out, w = reference.multi_head_attention(X, W_q, W_k, W_v, W_o, h, causal=causal)
    routes = functools.cache(lambda: reference.mha_routes(X, W_q, W_k, W_v, W_o, h, causal))
    swapped = _("returned (weights, output) instead of (output, weights)")
    made = functools.partial(layer_call, layer, reference, X, W_q, W_k, W_v, W_o, h, causal)
    check.array(got[1], w, what=_("the weights from multi_head_attention on {what}").format(what=what), **TOL,
                call=made(1), mistakes=lambda: {
                    **{k: v[1] for k, v in routes().items()},
                    _("returned the heads' weights averaged: return one (n, n) table per head, shape (n_heads, n, n)"): w.mean(axis=0),
                    _("returned the weights of the first head only: return every head's, shape (n_heads, n, n)"): w[0],
                    swapped: out})
    check.array(got[0], out, what=_("the output from multi_head_attention on {what}").format(what=what), **TOL,
                call=made(0), mistakes=lambda: {**{k: v[0] for k, v in routes().items()}, swapped: w})
    return got


def layer_call(layer, reference, X, W_q, W_k, W_v, W_o, h, causal, part):
    """The call, for the relation search: part 0 is the output, part 1 the weights."""
    sizes = dict(n=X.shape[0], d_model=X.shape[1], n_heads=h, d_k=W_q.shape[1] // h, d_v=W_v.shape[1] // h,
                 d_out=W_o.shape[1])
    return check.Call(layer.multi_head_attention, reference.multi_head_attention,
                      dict(X=X, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o, n_heads=h), keywords=dict(causal=causal),
                      sizes=sizes, part=part, returns=(_("the output"), _("the weights")))


def test_every_size_different(student, reference, rng):
    """d_model=5, 3 heads with d_k=2 and d_v=4, d_out=7"""
    layer = reference.random_layer(rng, 6, 5, 3, 2, 4, 7)
    check_layer(student, reference, *layer, 3, False, _("6 tokens, d_model=5, 3 heads, d_k=2, d_v=4, d_out=7"))


def test_every_size_different_causal(student, reference, rng):
    """the same, causal"""
    layer = reference.random_layer(rng, 7, 5, 2, 3, 2, 4)
    check_layer(student, reference, *layer, 2, True, _("7 tokens, d_model=5, 2 heads, d_k=3, d_v=2, d_out=4"))


def test_standard_layer_several_head_counts(student, reference, rng):
    """the standard layer (every width d_model=8) with 1, 2, 4 and 8 heads"""
    check_layers(student, reference, [(*reference.random_layer(rng, 5, 8, h, 8 // h, 8 // h, 8), h, h % 2 == 0,
                                       _("the standard layer with d_model=8 and {h} head(s)").format(h=h))
                                      for h in (1, 2, 4, 8)])


def test_your_notebook_layer(student, reference, params):
    """your notebook's layer, causal and not"""
    X, W_q, W_k, W_v, W_o = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v", "W_o"))
    check_layers(student, reference, [(X, W_q, W_k, W_v, W_o, params["n_heads"], causal, _("your notebook's layer"))
                                      for causal in (False, True)])


def test_one_token(student, reference, rng):
    """a single token"""
    layer = reference.random_layer(rng, 1, 4, 2, 3, 2, 5)
    check_layer(student, reference, *layer, 2, True, _("a single token (n=1), 2 heads"))


def test_many_tokens(student, reference, rng):
    """16 tokens, 4 heads, causal"""
    layer = reference.random_layer(rng, 16, 6, 4, 3, 2, 5)
    check_layer(student, reference, *layer, 4, True, _("16 tokens, d_model=6, 4 heads, d_k=3, d_v=2, d_out=5"))
