"""gradekit.grading.verify: every claim recomputed from the raw values, by code of its own; the false
claims the engine was caught saying, pinned."""

from __future__ import annotations

import numpy as np

from gradekit.graders.check import Call
from gradekit.graders.witness import Witness
from gradekit.grading.verify import claims as verify
from gradekit.grading.diagnosis import weigh
from gradekit.results import Check

RNG = np.random.default_rng(20261204)


def raw(S, R, call=None, mistakes=None) -> Witness:
    S, R = np.asarray(S, dtype=float), np.asarray(R, dtype=float)
    return Witness([S], [R], (1e-6, 1e-8), subjects=["f#0"], whole="f#0", call=call, mistakes=mistakes or {})


def claim(family, arg, S, R, call=None, detail=None, said=None):
    return verify.claim(family, arg, "f#0", raw(S, R, call), detail, said)


def test_from_an_index_on_is_false_when_the_first_row_differs_too():
    R = RNG.normal(size=(4, 3)) + 5
    S = R.copy()
    S[1:] = 0
    assert claim("where", "a0:from:1:zero", S, R) is True
    S[0, 0] += 1  # row 0 differs too
    assert claim("where", "a0:from:1:zero", S, R) is False
    assert claim("where", "a0:from:1", S, R) is False


def test_a_band_is_said_of_queries_and_keys_never_of_queries_and_features():
    Q, K = RNG.normal(size=(5, 3)), RNG.normal(size=(7, 3))
    R = Q @ K.T
    k = np.arange(7)[None, :] - np.arange(5)[:, None]
    S = np.where((k >= -2) & (k <= -1), 0.0, R)
    call = Call(None, None, dict(Q=Q, K=K))
    assert claim("where", "band:-2:-1:zero", S, R, call) is True      # 5 queries × 7 keys: positions both
    X, W = RNG.normal(size=(5, 4)), RNG.normal(size=(4, 7))
    R = X @ W                                                           # 5 tokens × 7 features
    S = np.where((k >= -2) & (k <= -1), 0.0, R)
    assert claim("where", "band:-2:-1:zero", S, R, Call(None, None, dict(X=X, W=W))) is False


def test_and_zero_there_means_every_entry_the_place_names():
    R = RNG.normal(size=(5, 5)) + 5
    k = np.arange(5)[None, :] - np.arange(5)[:, None]
    S = np.where((k >= 1) & (k <= 2), 0.0, R)  # a band is 0; the rest of the upper triangle is right
    assert claim("where", "above:1", S, R) is True
    assert claim("where", "above:1:zero", S, R) is False
    assert claim("where", "band:1:2:zero", S, R) is True


def test_a_place_that_names_every_entry_cannot_be_refuted():
    R = RNG.normal(size=(1, 4))
    assert claim("where", "a0:last:zero", np.zeros((1, 4)), R) is None


def test_a_number_of_its_own_on_one_number_fits_anything():
    assert claim("factor", "any", [2.0], [3.0]) is None
    assert claim("shift", "any", [2.0], [3.0]) is None
    R = RNG.normal(size=4)
    assert claim("factor", "any", 1.7 * R, R) is True
    assert claim("factor", "any", 1.7 * R + 0.1, R) is False


def test_fitted_with_a_c_of_its_own_is_checked_with_the_c_and_never_on_one_number():
    def ref(x):
        return np.exp(x) / np.exp(x).sum()

    x = RNG.normal(size=5)
    call = Call(None, ref, dict(x=x))
    S = ref(0.8 * x)
    assert claim("fitted", "scale:x:any", S, ref(x), call, detail={"c": 0.8}) is True
    assert claim("fitted", "scale:x:any", S, ref(x), call, detail={"c": 0.7}) is False
    assert claim("fitted", "scale:x:any", S, ref(x), call) is None        # no c found here: not told
    assert claim("fitted", "scale:x:c:0.8", S, ref(x), call, detail={"c": 0.8}) is True
    assert claim("fitted", "scale:x:c:0.5", S, ref(x), call, detail={"c": 0.8}) is False

    def total(x):
        return float(np.sum(np.exp(x)))

    one = Call(None, total, dict(x=x))
    assert claim("fitted", "scale:x:any", [total(0.8 * x)], [total(x)], one, detail={"c": 0.8}) is None


def test_a_size_expression_is_evaluated_on_each_checks_own_sizes():
    Q, K = RNG.normal(size=(3, 5)), RNG.normal(size=(4, 5))
    R = Q @ K.T / np.sqrt(5)
    call = Call(None, None, dict(Q=Q, K=K))
    assert claim("factor", "expr:1/sqrt(K.shape[1])", R / np.sqrt(5), R, call) is True
    assert claim("factor", "expr:1/sqrt(K.shape[0])", R / np.sqrt(5), R, call) is False
    assert claim("factor", "expr:sqrt(K.shape[1]/(K.shape[1] - 1))", R * np.sqrt(5 / 4), R, call) is True


def test_the_right_function_on_changed_inputs_is_called_again_here():
    def ref(x, y):
        return x @ y

    x, y = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))
    call = Call(None, ref, dict(x=x, y=y))
    assert claim("changed", "scale:x:-1", ref(-x, y), ref(x, y), call) is True
    assert claim("changed", "scale:y:-1", ref(x, 2 * y), ref(x, y), call) is False
    assert claim("changed", "cut:-1:x.1,y.0", ref(x[:, :-1], y[:-1]), ref(x, y), call) is True


def _mistaken(S, R, value) -> Check:
    return Check("c", False, "differ", candidates=["m"] if np.allclose(S, value) else [],
                 ruled_out=[] if np.allclose(S, value) else ["m"],
                 evidence={"raw": raw(S, R, mistakes={"m": [np.asarray(value, dtype=float)]})})


def test_a_mistake_is_named_on_two_independent_inputs_only():
    R1, R2 = RNG.normal(size=4), RNG.normal(size=4)
    one = [_mistaken(2 * R1, R1, 2 * R1)]
    assert weigh(one) == []                                   # one input: a coincidence is possible
    same = [_mistaken(2 * R1, R1, 2 * R1), _mistaken(2 * R1, R1, 2 * R1)]
    assert weigh(same) == []                                  # the same input twice is one input
    two = [_mistaken(2 * R1, R1, 2 * R1), _mistaken(2 * R2, R2, 2 * R2)]
    (finding,) = weigh(two)
    assert finding.mistakes == ["m"] and finding.checks == 2
    answer = _mistaken(2 * R1, R1, 2 * R1)
    assert answer.evidence is not None
    answer.evidence["answer"] = True                          # a value the student wrote: its own input
    assert [f.mistakes for f in weigh([answer])] == [["m"]]


def test_a_candidate_the_values_refute_is_not_named():
    R1, R2 = RNG.normal(size=4), RNG.normal(size=4)
    lying = [_mistaken(2 * R1, R1, 2 * R1), _mistaken(2 * R2, R2, 2 * R2)]
    lying[1].evidence["raw"].mistakes["m"] = [3 * R2]         # the search said candidate; the values say not
    assert weigh(lying) == []


def test_a_mistake_that_would_be_wrong_where_the_student_was_right_is_not_named():
    R1, R2, R3 = RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=4)
    two = [_mistaken(2 * R1, R1, 2 * R1), _mistaken(2 * R2, R2, 2 * R2)]
    right_there = raw(R3, R3, mistakes={"m": [2 * R3]})       # a passing check: the mistake gives another value
    assert weigh(two, passed=[right_there]) == []
    agrees = raw(R3, R3, mistakes={"m": [R3]})                # the mistake gives the right answer there: no evidence
    assert [f.mistakes for f in weigh(two, passed=[agrees])] == [["m"]]


def test_a_factor_said_as_a_division_is_one_over_all_of_it():
    Q, K = RNG.normal(size=(3, 8)), RNG.normal(size=(4, 8))
    R = Q @ K.T / np.sqrt(8)
    call = Call(None, None, dict(Q=Q, K=K))
    assert claim("factor", "expr:1/2·sqrt(K.shape[1])", R / (2 * np.sqrt(8)), R, call) is True
    assert claim("factor", "expr:1/2·sqrt(K.shape[1])", R * np.sqrt(8) / 2, R, call) is False


def test_a_shape_said_is_the_shape_of_every_check():
    R = RNG.normal(size=(4, 6))
    assert claim("order", "reshape", R.reshape(6, 4), R, said={"shape": [[6, 4]]}) is True
    assert claim("order", "reshape", R.reshape(8, 3), R, said={"shape": [[6, 4]]}) is False


def test_one_sign_of_a_functions_answer_is_no_evidence_but_a_written_number_is_what_it_is():
    call = Call(None, None, dict(x=RNG.normal(size=5)))
    assert claim("elementwise", "sign", 1.0, 0.73, call) is None  # a function that always says 1 matches it
    assert claim("elementwise", "round:0", 1.0, 0.73, call) is None
    R = np.array([0.7, -0.4, 1.3, -2.2])
    assert claim("elementwise", "sign", np.sign(R), R, call) is True  # two signs: a constant would not match
    assert claim("elementwise", "sign", np.ones(4), R, call) is False
    assert claim("elementwise", "sign", 1.0, 0.73) is True  # a number the student wrote (no call)


def test_moved_by_an_integer_input_is_checked_with_that_checks_own_number():
    x = RNG.normal(size=10)
    R = np.cumsum(x)
    S = np.concatenate([np.zeros(3), R[:-3]])  # your entry i + 3 is the right entry i
    assert claim("order", "roll:0:+=lag", S, R, Call(None, None, dict(x=x, lag=3))) is True
    assert claim("order", "roll:0:+=lag", S, R, Call(None, None, dict(x=x, lag=2))) is False
    assert claim("order", "roll:0:+=lag", S[:5], R[:5], Call(None, None, dict(x=x, lag=3))) is None  # 2 compared


def test_right_when_the_mean_is_0_is_asked_at_the_inputs_own_size_too():
    from gradekit.graders.witness import Asked

    def right(X):
        m = X.max(axis=1, keepdims=True)
        return (m + np.log(np.exp(X - m).sum(axis=1, keepdims=True)))[:, 0]

    def theirs(X):  # no shift: right on small numbers, inf beyond exp's range
        with np.errstate(over="ignore"):
            return np.log(np.exp(X).sum(axis=1))

    X = RNG.normal(size=(6, 3))
    X[::2, 0] += 750.0
    centred = X - X.mean(axis=0, keepdims=True)
    alternating = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])[:, None]
    own_size = centred + alternating * X.mean(axis=0, keepdims=True)  # mean 0, numbers as far out as X's
    witness = raw(theirs(X), right(X), Call(theirs, right, dict(X=X)))
    witness.asked = [Asked("probed", [centred], [theirs(centred)])]
    assert verify.claim("probed", "right:centred:X", "f#0", witness) is None  # asked on the centred input only
    witness.asked.append(Asked("probed", [own_size], [theirs(own_size)]))
    assert verify.claim("probed", "right:centred:X", "f#0", witness) is False  # overflows there: not the mean
    stack = np.stack([X, X])  # (2, 6, 3): its first axis holds tables, not rows
    witness = raw(theirs(X), right(X), Call(theirs, right, dict(X=stack)))
    assert verify.claim("probed", "right:centred:X", "f#0", witness) is None
