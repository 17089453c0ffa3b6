"""Hidden tests for the cell `test_attention_masked`: attention(Q, K, V, mask).

The causal mask on one head and broadcast over a stack and a batch, masks that
are not causal (and not square), one mask per head, and large scores.
"""

import functools

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-7)


def _check(student, reference, Q, K, V, mask, what):
    got = student.attention(Q, K, V, mask)
    assert isinstance(got, (tuple, list)) and len(got) == 2, \
        _("attention on {what}: should return the tuple (output, weights)").format(what=what)
    out, w = reference.attention(Q, K, V, mask)
    routes = functools.cache(lambda: reference.attention_routes(Q, K, V, mask))
    check.array(got[1], w, what=_("the weights from attention on {what}").format(what=what), **TOL,
                call=call_of(student, reference, Q, K, V, mask, 1),
                mistakes=lambda: {k: v[1] for k, v in routes().items()})
    check.array(got[0], out, what=_("the output from attention on {what}").format(what=what), **TOL,
                call=call_of(student, reference, Q, K, V, mask, 0),
                mistakes=lambda: {k: v[0] for k, v in routes().items()})


def call_of(student, reference, Q, K, V, mask, part):
    """The call, for the relation search: part 0 is the output, part 1 the weights (as in test_attention)."""
    sizes = dict(n_q=Q.shape[-2], n_k=K.shape[-2], d_k=Q.shape[-1], d_v=V.shape[-1])
    return check.Call(student.attention, reference.attention, dict(Q=Q, K=K, V=V, mask=mask), sizes=sizes,
                      part=part, returns=(_("the output"), _("the weights")))


def _random_mask(rng, shape):
    """Booleans with at least one True in every row (every query sees some key)."""
    mask = rng.random(shape) < 0.5
    rows = mask.reshape(-1, shape[-1])
    rows[np.arange(rows.shape[0]), rng.integers(0, shape[-1], size=rows.shape[0])] = True
    return rows.reshape(shape)


def test_causal_one_head(student, reference, rng):
    """the causal mask, one head"""
    Q, K, V = rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    _check(student, reference, Q, K, V, reference.causal_mask(6), _("one head of 6 tokens with the causal mask"))


def test_causal_mask_broadcast_over_heads(student, reference, rng):
    """one (n, n) causal mask for a stack of 4 heads"""
    Q, K, V = rng.normal(size=(4, 5, 2)), rng.normal(size=(4, 5, 2)), rng.normal(size=(4, 5, 3))
    _check(student, reference, Q, K, V, reference.causal_mask(5), _("4 heads of 5 tokens with one causal mask"))


def test_causal_batch(student, reference, rng):
    """a batch of 2 sequences with 2 heads each, causal"""
    Q, K, V = rng.normal(size=(2, 2, 5, 3)), rng.normal(size=(2, 2, 5, 3)), rng.normal(size=(2, 2, 5, 4))
    _check(student, reference, Q, K, V, reference.causal_mask(5), _("a batch of shape (2, 2), 5 tokens, causal"))


def test_mask_not_square(student, reference, rng):
    """4 queries, 7 keys, an arbitrary mask"""
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(7, 3)), rng.normal(size=(7, 2))
    _check(student, reference, Q, K, V, _random_mask(rng, (4, 7)), _("4 queries, 7 keys and a mask that is not causal"))


def test_one_mask_per_head(student, reference, rng):
    """a different mask in each of 3 heads"""
    Q, K, V = rng.normal(size=(3, 5, 2)), rng.normal(size=(3, 6, 2)), rng.normal(size=(3, 6, 3))
    _check(student, reference, Q, K, V, _random_mask(rng, (3, 5, 6)), _("3 heads, each with a mask of its own"))


def test_your_heads_causal(student, reference, params):
    """the heads of your notebook's layer, causal"""
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    Q, K, V = (reference.split_heads(X @ W, params["n_heads"]) for W in (W_q, W_k, W_v))
    _check(student, reference, Q, K, V, reference.causal_mask(X.shape[0]), _("the heads of your X, causal"))


def test_large_scores_causal(student, reference, rng):
    """scores near 1000 with the causal mask"""
    Q, K = rng.normal(size=(2, 6, 3)), rng.normal(size=(2, 6, 3))
    Q[..., 0] = K[..., 0] = np.sqrt(1000.0 * np.sqrt(3))  # every score near 1000, differences about 1
    _check(student, reference, Q, K, rng.normal(size=(2, 6, 2)), reference.causal_mask(6),
           _("2 heads with scores near 1000, causal"))
