"""Hidden tests for the cell `test_self_attention`: self_attention(X, W_q, W_k, W_v) -> (output, weights).

The student's helpers (project_qkv, scaled_scores, softmax, weighted_sum) are
replaced by the reference ones, so only a mistake inside self_attention itself
costs points here.
"""

import numpy as np

from gradekit.graders import check, probes
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-6)
HELPERS = ("project_qkv", "scaled_scores", "softmax", "weighted_sum")


NO_SCALING = _("no scaling: divide the scores by sqrt(d_k)")
DIV_DK = _("divided the scores by d_k instead of sqrt(d_k)")
SQRT_DMODEL = _("scaled by sqrt(d_model) instead of sqrt(d_k)")
SQRT_DV = _("scaled by sqrt(d_v) instead of sqrt(d_k)")
SQRT_N = _("scaled by sqrt(n), the number of tokens, instead of sqrt(d_k)")
DIV_DMODEL = _("divided the scores by d_model instead of sqrt(d_k)")
DIV_N = _("divided the scores by n, the number of tokens, instead of sqrt(d_k)")
KQ = _("Q and K swapped (computed K Qᵀ)")
WRONG_AXIS = _("softmax along the wrong axis: each row (one query) should sum to 1")
FLAT = _("one softmax over the whole score table instead of one per row")
TRANSPOSED = _("transposed the weights: row i of the weights belongs to query i")
RAW = _("no softmax: the scaled scores themselves were used as weights")
UNIFORM = _("ignored the scores: every token got the same weight")
X_AS_V = _("no value projection: the inputs X were mixed instead of the values V = X W_v")
WK_FOR_V = _("projected the values with W_k instead of W_v")
WQ_FOR_V = _("projected the values with W_q instead of W_v")
WQ_FOR_BOTH = _("one projection for both queries and keys: W_q was used for the keys too")
WK_FOR_BOTH = _("one projection for both queries and keys: W_k was used for the queries too")
CAUSAL = _("used a causal mask: plain self-attention lets every token see every other token")
LECTURE = _("hard-coded the lecture's weights (its hand example), not computed from the scores")
RETURN_ORDER = _("returned (weights, output) instead of (output, weights)")
UNMIXED = _("returned the values V without mixing them with the weights")
SCORES_AS_WEIGHTS = _("returned the scaled scores as the weights: the output is right, but the weights "
                      "are the softmax of the scores")

LECTURE_WEIGHTS = np.array([[0.670, 0.330], [0.330, 0.670]])


def _mistakes(reference, X, W_q, W_k, W_v):
    """(output, weights) of every route: where routes coincide (W_k = I, a symmetric table,
    d_k = n) that input is no evidence for either, and the diagnosis weighs the others."""
    n, d_model = X.shape
    d_k, d_v = W_k.shape[1], W_v.shape[1]
    variant = lambda **kw: reference.attention_variant(X, W_q, W_k, W_v, **kw)
    identity = np.eye(d_model)
    routes = {
        NO_SCALING: variant(scale=1.0),
        DIV_DK: variant(scale=float(d_k)),
        SQRT_DMODEL: variant(scale=float(np.sqrt(d_model))),
        SQRT_DV: variant(scale=float(np.sqrt(d_v))),
        SQRT_N: variant(scale=float(np.sqrt(n))),
        DIV_DMODEL: variant(scale=float(d_model)),
        DIV_N: variant(scale=float(n)),
        KQ: variant(swap_qk=True),
        WRONG_AXIS: variant(axis=0),
        FLAT: variant(weights="flat"),
        TRANSPOSED: variant(weights="transposed"),
        RAW: variant(weights="raw"),
        UNIFORM: variant(weights="uniform"),
        X_AS_V: variant(value_matrix=identity),
        WK_FOR_V: variant(value_matrix=W_k),
        WQ_FOR_V: variant(value_matrix=W_q),
        WQ_FOR_BOTH: variant(key_matrix=W_q),
        WK_FOR_BOTH: variant(query_matrix=W_k),
        CAUSAL: variant(causal=True),
    }
    out, w = reference.self_attention(X, W_q, W_k, W_v)
    # with another number of tokens the hard-coded weights are not used: that route gives the right answer
    routes[LECTURE] = (LECTURE_WEIGHTS @ (X @ W_v), LECTURE_WEIGHTS) if n == 2 else (out, w)
    routes[RETURN_ORDER] = (w, out)
    routes[UNMIXED] = (X @ W_v, w)
    Q, K = X @ W_q, X @ W_k
    routes[SCORES_AS_WEIGHTS] = (out, Q @ K.T / np.sqrt(d_k))
    return routes


def _check(student, reference, X, W_q, W_k, W_v, what):
    sa = student.with_reference(*HELPERS)
    got = sa.self_attention(X, W_q, W_k, W_v)
    assert isinstance(got, (tuple, list)) and len(got) == 2, \
        _("self_attention on {what}: should return the tuple (output, weights)").format(what=what)
    order = np.roll(np.arange(X.shape[0]), 1)
    # output and weights are one check: "weights right, output wrong" tells X-as-V from a scaling slip
    call = check.Call(sa.self_attention, reference.self_attention, dict(X=X, W_q=W_q, W_k=W_k, W_v=W_v),
                      sizes=dict(n=X.shape[0], d_model=X.shape[1], d_k=W_k.shape[1], d_v=W_v.shape[1]),
                      returns=(_("the output"), _("the weights")))
    check.arrays(got, reference.self_attention(X, W_q, W_k, W_v), **TOL, call=call,
                 what=[_("the output from self_attention on {what}").format(what=what),
                       _("the weights from self_attention on {what}").format(what=what)],
                 mistakes=lambda: _mistakes(reference, X, W_q, W_k, W_v), probes=lambda: [
                     probes.slices_not_summing_to_one(got[1], subject=_("the rows of your weights")),
                     probes.negative_entries(got[1], subject=_("your weights")),
                     probes.equals(got[0], X, subject=_("Your output"), other_name=_("the input rows X")),
                     probes.unchanged_when(lambda: sa.self_attention(X, W_q, W_k, 2.0 * W_v + 1.0)[0], got[0],
                                           subject=_("Your output"), changed=_("the value matrix W_v")),
                     probes.not_equivariant(lambda: sa.self_attention(X[order], W_q, W_k, W_v)[0], got[0], order,
                                            subject=_("your output"), items=_("the tokens"))
                     if X.shape[0] > 1 else None,
                 ])


def test_all_dimensions_different(student, reference, rng):
    X = rng.normal(size=(6, 5))
    W_q, W_k, W_v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 4))
    _check(student, reference, X, W_q, W_k, W_v, _("6 tokens, d_model=5, d_k=3, d_v=4"))


def test_your_notebook_numbers(student, reference, params):
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    _check(student, reference, X, W_q, W_k, W_v, _("the X, W_q, W_k, W_v of your notebook"))


def test_your_hand_example(student, reference, params):
    X = np.array([params["x1"], params["x2"]])
    I = np.eye(2)
    _check(student, reference, X, I, I, params["c"] * I, _("your hand example (x1, x2, W_q = W_k = I, W_v = c·I)"))


def test_two_tokens(student, reference, rng):
    X = rng.normal(size=(2, 3))
    W_q, W_k, W_v = rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), rng.normal(size=(3, 4))
    _check(student, reference, X, W_q, W_k, W_v, _("2 tokens, d_model=3, d_k=5, d_v=4"))


def test_sharp_scores(student, reference, rng):
    # larger scores, where the scaling decides which token dominates
    X = 2.0 * rng.normal(size=(7, 4))
    W_q, W_k, W_v = rng.normal(size=(4, 6)), rng.normal(size=(4, 6)), rng.normal(size=(4, 2))
    _check(student, reference, X, W_q, W_k, W_v, _("7 tokens with large scores, d_model=4, d_k=6, d_v=2"))


def test_single_token(student, reference, rng):
    # one token can only attend to itself: weight 1, output = its value
    X = rng.normal(size=(1, 3))
    W_q, W_k, W_v = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 4))
    _check(student, reference, X, W_q, W_k, W_v, _("a single token (n=1), d_model=3, d_k=2, d_v=4"))
