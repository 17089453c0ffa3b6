"""gradekit.graders.relations and gradekit.grading.relate: what a wrong value shows about the right one.

Plain functions stand for the student's and the reference's: each case is one
failed check (``check.arrays`` with a ``check.Call``), its evidence weighed with
the others' as a cell's are.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from gradekit.errors import Mismatch
from gradekit.graders import check
from gradekit.grading.diagnosis import diagnose, notes
from gradekit.grading.relate import relate, sentences
from gradekit.results import CellResult, Check

RNG = np.random.default_rng(20261201)


def scores(Q, K):
    return Q @ K.T / np.sqrt(K.shape[1])


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V):
    w = softmax(scores(Q, K))
    return w @ V, w


def _case(student, reference, inputs, *, keywords=None, sizes=None, returns=None, mistakes=None, step=None,
          relations=True) -> Check:
    """One check of ``student`` against ``reference`` on ``inputs``, as the harness records it."""
    args, kw = list(inputs.values()), keywords or {}
    got, right = student(*args, **kw), reference(*args, **kw)
    parts = isinstance(right, tuple)
    try:
        check.arrays(list(got) if parts else [got], list(right) if parts else [right],
                     what=[f"part {i}" for i in range(len(right))] if parts else ["the value"],
                     call=check.Call(student, reference, inputs, keywords=kw, sizes=sizes, returns=returns),
                     mistakes=mistakes, step=step, relations=relations)
    except Mismatch as exc:
        return Check("case", False, str(exc), candidates=exc.candidates, ruled_out=exc.ruled_out,
                     evidence=exc.relations)
    return Check("case", True)


def _said(checks) -> list[str]:
    return [str(s) for s in sentences(relate(checks))]


SHAPES = [(6, 7, 3), (5, 5, 3), (2, 4, 8), (3, 1, 2), (6, 6, 7)]


def _qk(shapes=SHAPES):
    return [dict(Q=RNG.normal(size=(a, d)), K=RNG.normal(size=(b, d))) for a, b, d in shapes]


def _sizes(inputs):
    return dict(n_q=inputs["Q"].shape[0], n_k=inputs["K"].shape[0], d_k=inputs["K"].shape[1])


@pytest.mark.parametrize("student, said", [
    (lambda Q, K: scores(Q, K) / K.shape[0], "divided by n_k (= 7, 5, 4, 6)"),
    (lambda Q, K: Q @ K.T / (K.shape[1] ** 1 / 2), "multiplied by 2/sqrt(d_k)"),
    (lambda Q, K: 0.5 * scores(Q, K), "divided by 2"),
    (lambda Q, K: -scores(Q, K), "with the opposite sign"),
    (lambda Q, K: scores(Q, K).T, "the transpose of the right ones"),
    (lambda Q, K: np.exp(scores(Q, K)), "the exponentials (exp) of the right ones"),
    (lambda Q, K: scores(Q / np.linalg.norm(Q, axis=1, keepdims=True), K / np.linalg.norm(K, axis=1, keepdims=True)),
     "what the right function gives for Q and K with each row scaled to length 1"),
    (lambda Q, K: scores(K, K), "K in place of Q"),
])
def test_a_relation_of_scores_is_said_with_its_sizes(student, said):
    checks = [_case(student, scores, qk, sizes=_sizes(qk)) for qk in _qk()]
    text = " ".join(_said(checks))
    assert said in text, text
    assert "(on all" in text or "(on the" in text


def test_a_function_of_the_right_value_and_the_right_function_on_changed_inputs():
    xs = [dict(x=RNG.normal(size=(3, 4, 5)) * 2) for _ in range(3)]
    log = [_case(lambda x, axis=-1: np.log(softmax(x, axis)), softmax, x, keywords=dict(axis=a)) for x, a in
           zip(xs, (0, 1, 2))]
    assert "the logarithms of the right ones" in " ".join(_said(log))
    negated = [_case(lambda x, axis=-1: softmax(-x, axis), softmax, x, keywords=dict(axis=a)) for x, a in
               zip(xs, (0, 1, 2))]
    assert "what the right function gives for -x" in " ".join(_said(negated))
    l2 = [_case(lambda x, axis=-1: softmax(x, axis) / np.linalg.norm(softmax(x, axis), axis=axis, keepdims=True),
                softmax, x, keywords=dict(axis=a)) for x, a in zip(xs, (0, 1, 2))]
    assert "along the axis given by `axis`" in " ".join(_said(l2))  # the argument, not the number


def test_an_offset_by_a_product_of_inputs_and_a_part_named():
    cases = []
    for n, d, dv in ((6, 5, 4), (2, 3, 4), (7, 4, 2)):
        X, W_q, W_k, W_v = RNG.normal(size=(n, d)), RNG.normal(size=(d, 3)), RNG.normal(size=(d, 3)), \
            RNG.normal(size=(d, dv))

        def reference(X, W_q, W_k, W_v):
            return attention(X @ W_q, X @ W_k, X @ W_v)

        def student(X, W_q, W_k, W_v):
            out, w = reference(X, W_q, W_k, W_v)
            return out + X @ W_v, w

        cases.append(_case(student, reference, dict(X=X, W_q=W_q, W_k=W_k, W_v=W_v), returns=("the output", "w")))
    assert _said(cases) == ["the output: your values minus X @ W_v are the right ones (on all 3 failed checks)."]


def test_independence_is_said_only_of_an_input_the_right_answer_depends_on():
    cases = [_case(lambda Q, K: K @ K.T, lambda Q, K: Q @ K.T, qk) for qk in _qk([(4, 4, 3), (5, 5, 2), (3, 3, 4)])]
    text = " ".join(_said(cases))
    assert "K in place of Q" in text or "did not change when the grader changed Q" in text
    assert "changed K" not in text


def test_steps_right_then_wrong():
    cases = [_case(lambda v: v + 1.0, lambda v: v, dict(v=RNG.normal(size=3)), step=t) for t in (4, 4)]
    said = _said(cases)
    assert any("right for the first 4 steps, then wrong" in s for s in said), said
    assert any("plus 1" in s for s in said), said  # what the values are, and where they go wrong


def test_one_case_says_nothing_and_a_contradicting_case_silences_it():
    one = [_case(lambda Q, K: 0.5 * scores(Q, K), scores, qk) for qk in _qk()[:1]]
    assert _said(one) == []
    mixed = [_case(lambda Q, K: 0.5 * scores(Q, K), scores, qk) for qk in _qk()[:2]] + \
        [_case(lambda Q, K: 0.25 * scores(Q, K), scores, qk) for qk in _qk()[2:3]]
    assert not any("divided by 2" in s for s in _said(mixed))


def test_a_known_mistake_comes_first_and_a_law_searches_nothing():
    student = lambda Q, K: 0.5 * scores(Q, K)  # noqa: E731
    cell = CellResult("test_scores", 2, 0.0, [
        _case(student, scores, qk, mistakes={"halved": [0.5 * scores(qk["Q"], qk["K"])]}) for qk in _qk()[:3]])
    diagnose(cell)
    assert cell.diagnosis == ["halved"] and cell.relations == []
    assert all(c.evidence is None for c in cell.checks)  # weighed, then dropped from the stored result
    law = _case(student, scores, _qk()[0], relations=False)
    assert law.evidence is None


def test_the_sentences_show_no_expected_value():
    """A factor has two significant digits (LeakScan counts three as a leak); R itself never appears."""
    cases = [_case(lambda Q, K: 0.61803398 * scores(Q, K), scores, qk) for qk in _qk()]
    cell = CellResult("c", 2, 0.0, cases)
    diagnose(cell)
    (said,) = notes(cell)
    assert said.startswith("Your values are the right ones multiplied by 0.62")
    assert not re.search(r"\d\.\d{3}", said)


def test_a_right_answer_costs_no_search(monkeypatch):
    import gradekit.graders.check as module

    monkeypatch.setattr(module, "_relations", lambda *a, **k: pytest.fail("searched a right answer"))
    qk = _qk()[0]
    check.array(scores(**qk), scores(**qk), what="x", call=check.Call(scores, scores, qk))
