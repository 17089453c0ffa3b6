"""Hidden tests for the cell `test_attention`: attention(Q, K, V) without a mask.

One head (2-D), a stack of heads (3-D), a batch of stacks (4-D); n_q ≠ n_k and
d_k ≠ d_v; scores large enough to overflow a softmax without its maximum
subtracted.
"""

import functools

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-7)


def check_attention(student, reference, Q, K, V, what, mask=None):
    """Compare (output, weights) with the reference; name the route a wrong answer took."""
    got = student.attention(Q, K, V) if mask is None else student.attention(Q, K, V, mask)
    assert isinstance(got, (tuple, list)) and len(got) == 2, \
        _("attention on {what}: should return the tuple (output, weights)").format(what=what)
    out, w = reference.attention(Q, K, V, mask)
    routes = functools.cache(lambda: reference.attention_routes(Q, K, V, mask))  # only for a wrong answer
    swapped = _("returned (weights, output) instead of (output, weights)")
    call = functools.partial(call_of, student, reference, Q, K, V, mask)
    check.array(got[1], w, what=_("the weights from attention on {what}").format(what=what), **TOL, call=call(1),
                mistakes=lambda: {**{k: v[1] for k, v in routes().items()}, swapped: out})
    check.array(got[0], out, what=_("the output from attention on {what}").format(what=what), **TOL, call=call(0),
                mistakes=lambda: {**{k: v[0] for k, v in routes().items()}, swapped: w})


def call_of(student, reference, Q, K, V, mask, part):
    """The call, for the relation search: part 0 is the output, part 1 the weights."""
    inputs = dict(Q=Q, K=K, V=V) if mask is None else dict(Q=Q, K=K, V=V, mask=mask)
    sizes = dict(n_q=Q.shape[-2], n_k=K.shape[-2], d_k=Q.shape[-1], d_v=V.shape[-1])
    return check.Call(student.attention, reference.attention, inputs, sizes=sizes, part=part,
                      returns=(_("the output"), _("the weights")))


def test_one_head_non_square(student, reference, rng):
    """one head, 3 queries and 6 keys"""
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 2))
    check_attention(student, reference, Q, K, V, _("3 queries, 6 keys, d_k=4, d_v=2"))


def test_stack_of_heads(student, reference, rng):
    """a stack of 3 heads"""
    Q, K, V = rng.normal(size=(3, 5, 2)), rng.normal(size=(3, 5, 2)), rng.normal(size=(3, 5, 3))
    check_attention(student, reference, Q, K, V, _("a stack of 3 heads (5 tokens, d_k=2, d_v=3)"))


def test_batch_of_stacks(student, reference, rng):
    """a batch of 2 sequences with 3 heads each"""
    Q, K, V = rng.normal(size=(2, 3, 4, 3)), rng.normal(size=(2, 3, 6, 3)), rng.normal(size=(2, 3, 6, 5))
    check_attention(student, reference, Q, K, V, _("a batch of shape (2, 3) with 4 queries, 6 keys, d_k=3, d_v=5"))


def test_your_heads(student, reference, params):
    """the heads of your notebook's layer"""
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    h = params["n_heads"]
    Q, K, V = (reference.split_heads(X @ W, h) for W in (W_q, W_k, W_v))
    check_attention(student, reference, Q, K, V, _("the heads of your X, W_q, W_k, W_v"))


def large_scores(rng, lead, n_q, n_k, d_k):
    """Q and K whose scores are all near 1000 but differ by about 1 (not saturated): a softmax
    that does not subtract each row's maximum overflows, and the scaling still shows."""
    Q, K = rng.normal(size=lead + (n_q, d_k)), rng.normal(size=lead + (n_k, d_k))
    Q[..., 0] = K[..., 0] = np.sqrt(1000.0 * np.sqrt(d_k))
    return Q, K


def test_large_scores(student, reference, rng):
    """scores near 1000: the softmax must subtract each row's maximum"""
    Q, K = large_scores(rng, (2,), 4, 5, 3)
    check_attention(student, reference, Q, K, rng.normal(size=(2, 5, 2)), _("2 heads with scores near 1000"))


def test_one_key(student, reference, rng):
    """a single key: every weight is 1"""
    Q, K, V = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 1, 4)), rng.normal(size=(2, 1, 3))
    check_attention(student, reference, Q, K, V, _("2 heads with a single key"))
