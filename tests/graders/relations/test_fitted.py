"""gradekit.graders.relations.fitted: the right function on c·x or x + c, c fitted on each check."""

import numpy as np

from gradekit.graders.relations.fitted import FAMILY
from relation_cases import RNG, case, cases, said, softmax, tables


def test_a_temperature_is_said_with_two_digits_and_a_change_of_base_by_name():
    text = said(cases(lambda x, axis=-1: softmax(x / 1.5, axis), softmax, tables((3, 4), (5, 6), (2, 7))))
    assert "what the right function gives for 0.67·x" in text, text
    text = said(cases(lambda x, axis=-1: softmax(x * np.log(2), axis), softmax, tables((3, 4), (5, 6), (2, 7))))
    assert "what the right function gives for ln 2·x" in text, text


def test_a_size_is_named_and_a_shift_found():
    def attend(Q, K):
        return softmax(Q @ K.T / np.sqrt(K.shape[1]))

    inputs = [dict(Q=RNG.normal(size=(n, d)), K=RNG.normal(size=(n + 1, d))) for n, d in ((4, 3), (5, 5), (3, 7))]
    sizes = [dict(d_k=i["K"].shape[1]) for i in inputs]
    checks = [case(lambda Q, K: softmax(Q @ K.T / K.shape[1]), attend, i, sizes=s) for i, s in zip(inputs, sizes)]
    text = said(checks)
    assert "what the right function gives for Q/sqrt(d_k)" in text, text

    def wave(p):
        return np.sin(p / 3.0)

    positions = [dict(p=np.sort(RNG.uniform(0, 20, size=n))) for n in (5, 7, 4)]  # not evenly spaced
    assert "what the right function gives for p + 1" in said(cases(lambda p: np.sin((p + 1) / 3.0), wave, positions))


def test_a_c_that_changes_from_check_to_check_is_said_as_one_of_its_own_on_each():
    inputs = tables((4, 5), (6, 3))
    checks = [case(lambda x, axis=-1: softmax(x / 1.5, axis), softmax, inputs[0]),
              case(lambda x, axis=-1: softmax(x / 2.5, axis), softmax, inputs[1])]
    text = said(checks)
    assert "what the right function gives for c·x, with a c of its own on each check (0.67, 0.4)" in text, text
    assert "0.67·x" not in text and "0.4·x" not in text


def test_the_fit_stays_within_its_cost():
    calls = []

    def reference(x, axis=-1):
        calls.append(1)
        return softmax(x, axis)

    for one in tables((3, 4), (5, 6)):
        calls.clear()
        case(lambda x, axis=-1: softmax(np.sinh(x), axis), reference, one)  # no c fits it
        assert len(calls) <= 1 + sum(f.cost.reference for f in _calling())


def _calling():
    from gradekit.graders.relations.engine import families

    return [f for f in families() if f.cost.calls]


def test_its_cost_is_declared():
    assert FAMILY.cost.reference > 0 and FAMILY.cost.student == 0


def test_one_size_taken_for_another_is_said_as_their_ratio():
    def attend(Q, K, V):
        return softmax(Q @ K.T / np.sqrt(K.shape[1])) @ V

    def by_dv(Q, K, V):
        return softmax(Q @ K.T / np.sqrt(V.shape[1])) @ V

    inputs = [dict(Q=RNG.normal(size=(4, d)), K=RNG.normal(size=(5, d)), V=RNG.normal(size=(5, e)))
              for d, e in ((4, 2), (6, 3), (3, 5))]
    text = said(cases(by_dv, attend, inputs))
    assert "what the right function gives for sqrt(Q.shape[1]/V.shape[1])·Q" in text, text


def test_a_function_passed_in_scaled():
    def attend(Q, K, score):
        return softmax(np.asarray(score(Q, K)))

    W = RNG.normal(size=(3, 3))
    inputs = [dict(Q=RNG.normal(size=(n, 3)), K=RNG.normal(size=(n + 2, 3)), score=lambda q, k: q @ W @ k.T)
              for n in (3, 4, 5)]
    text = said(cases(lambda Q, K, score: attend(Q, K, lambda q, k: score(q, k) / 1.7), attend, inputs))
    assert "what the right function gives for 0.59·score(…)" in text, text


def test_one_c_for_two_inputs_said_of_the_wrong_parts():
    """A running maximum m and a block's scores s: exp2 in place of exp is the right function on ln 2·m
    and ln 2·s -- for the sum it returns; the new maximum, right, is not what that gives."""

    def fold(m, s, exp=np.exp):
        m_new = np.maximum(m, s.max(axis=1))
        return m_new, exp(s - m_new[:, None]).sum(axis=1) + exp(m - m_new)

    inputs = [dict(m=RNG.normal(size=n), s=RNG.normal(scale=2, size=(n, b))) for n, b in ((4, 3), (5, 2), (3, 4))]
    checks = cases(lambda m, s: fold(m, s, np.exp2), fold, inputs, returns=("the new m", "the sum"))
    text = said(checks)
    assert "the sum: your values are what the right function gives for ln 2·m and ln 2·s" in text, text
