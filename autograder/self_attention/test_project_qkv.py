"""Hidden tests for the cell `test_project_qkv`: project_qkv(X, W_q, W_k, W_v) -> (Q, K, V)."""

import numpy as np

from gradekit.graders import check, probes
from gradekit.i18n import _

TOL = dict(rtol=1e-5, atol=1e-6)  # loose enough for float32 answers


def _weights(rng, n, d_model, d_k, d_v):
    X = rng.normal(size=(n, d_model))
    return X, rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))


SWAPPED = _("Q and K swapped: the queries come from W_q, the keys from W_k")
WQ_FOR_BOTH = _("one projection for both: W_q was used for the keys too")
WK_FOR_BOTH = _("one projection for both: W_k was used for the queries too")
WK_FOR_V = _("used W_k for the values (V should be X @ W_v)")
WQ_FOR_V = _("used W_q for the values (V should be X @ W_v)")
WV_FOR_Q = _("used W_v for the queries (Q should be X @ W_q)")
WV_FOR_K = _("used W_v for the keys (K should be X @ W_k)")
K_V_SWAPPED = _("K and V swapped: the keys come from W_k, the values from W_v")
X_AS_V = _("no value projection: X itself was returned as V")
NO_PROJECTION = _("no projections: X itself was returned as Q, K and V")
WRONG_ORDER = _("multiplied in the wrong order: the token rows of X go on the left, X @ W")
TRANSPOSED_W = _("multiplied by the transposed matrices (X @ Wᵀ)")


def _mistakes(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    square = all(W.shape[0] == W.shape[1] for W in (W_q, W_k, W_v))
    return {
        SWAPPED: (K, Q, V),
        WQ_FOR_BOTH: (Q, Q, V),
        WK_FOR_BOTH: (K, K, V),
        WK_FOR_V: (Q, K, K),
        WQ_FOR_V: (Q, K, Q),
        WV_FOR_Q: (V, K, V),
        WV_FOR_K: (Q, V, V),
        K_V_SWAPPED: (Q, V, K),
        X_AS_V: (Q, K, X),
        NO_PROJECTION: (X, X, X),
        WRONG_ORDER: (Q.T, K.T, V.T),
        TRANSPOSED_W: (X @ W_q.T, X @ W_k.T, X @ W_v.T) if square else check.FAILS,
    }


def _check(student, reference, X, W_q, W_k, W_v, what):
    got = student.project_qkv(X, W_q, W_k, W_v)
    assert isinstance(got, (tuple, list)) and len(got) == 3, \
        (_("project_qkv on {what}: should return the tuple (Q, K, V), got {kind} of length {count}")
         if isinstance(got, (tuple, list)) else
         _("project_qkv on {what}: should return the tuple (Q, K, V), got {kind}")).format(
            what=what, kind=type(got).__name__, count=len(got) if isinstance(got, (tuple, list)) else 0)
    # the three are one check: a route predicts all three ("Q right, K wrong" tells routes apart)
    n, d_model = X.shape
    call = check.Call(student.project_qkv, reference.project_qkv, dict(X=X, W_q=W_q, W_k=W_k, W_v=W_v),
                      sizes=dict(n=n, d_model=d_model, d_k=W_q.shape[1], d_v=W_v.shape[1]), returns=("Q", "K", "V"))
    check.arrays(got, reference.project_qkv(X, W_q, W_k, W_v), **TOL, call=call,
                 what=[_("{name} from project_qkv on {what}").format(name=name, what=what) for name in "QKV"],
                 mistakes=lambda: _mistakes(X, W_q, W_k, W_v), probes=lambda: [
                     probes.equals(got[2], X, subject=_("Your V"), other_name=_("the input rows X")),
                 ])


def test_all_dimensions_different(student, reference, rng):
    X, W_q, W_k, W_v = _weights(rng, n=6, d_model=5, d_k=3, d_v=4)
    _check(student, reference, X, W_q, W_k, W_v, _("6 tokens, d_model=5, d_k=3, d_v=4"))


def test_your_notebook_numbers(student, reference, params):
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    _check(student, reference, X, W_q, W_k, W_v, _("the X, W_q, W_k, W_v of your notebook"))


def test_values_wider_than_keys(student, reference, rng):
    X, W_q, W_k, W_v = _weights(rng, n=7, d_model=3, d_k=2, d_v=9)
    _check(student, reference, X, W_q, W_k, W_v, _("7 tokens, d_model=3, d_k=2, d_v=9"))


def test_single_token(student, reference, rng):
    X, W_q, W_k, W_v = _weights(rng, n=1, d_model=4, d_k=6, d_v=2)
    _check(student, reference, X, W_q, W_k, W_v, _("a single token (n=1), d_model=4, d_k=6, d_v=2"))
