"""gradekit.grading.relate: the rules a relation is said by, on hand-made evidence and the raw values
the verifier recomputes each claim from."""

from __future__ import annotations

import numpy as np

from gradekit.graders.check import Call
from gradekit.graders.witness import Witness
from gradekit.grading.relate import relate, sentences
from gradekit.results import Check

RNG = np.random.default_rng(20261204)


def _raw(S, R, *, call=None, step=None, subjects=("f#0",)) -> Witness:
    S, R = (list(v) if isinstance(v, tuple) else [v] for v in (S, R))
    whole = subjects[0] if len(subjects) == 1 else "f#all"
    return Witness(S, R, (1e-6, 1e-8), subjects=list(subjects), whole=whole, call=call, step=step)


def _check(holds: dict, tested=(), known=False, labels=None, raw=None) -> Check:
    evidence = {"tested": list(tested), "holds": holds, "labels": labels or {}, "known": known}
    if raw is not None:
        evidence["raw"] = raw
    return Check("a case", False, "values differ", evidence=evidence)


F = "f#0|"


def _logs():
    R = RNG.uniform(1, 3, size=(3, 4))
    return _raw(np.log(R), R)


def test_two_agreeing_checks_and_none_against():
    both = [_check({F + "elementwise|log": {}}, [F + "elementwise|log"], raw=_logs()) for _ in range(2)]
    (relation,) = relate(both)
    assert (relation.family, relation.args, relation.failed, relation.tried) == ("elementwise", ["log"], 2, 2)
    R = RNG.uniform(1, 3, size=(3, 4))
    against = both + [_check({}, [F + "elementwise|log"], raw=_raw(R + 1, R))]
    assert relate(against) == []                           # tried on a third and false there
    untried = both + [_check({}, [F + "factor|c:*"])]
    (relation,) = relate(untried)                          # no values on the third: neither for nor against
    assert relation.tried == 2 and relation.failed == 3
    assert "on the 2 of 3 failed checks where it was tried" in str(sentences([relation])[0])


def test_the_verifier_refutes_what_the_search_wrongly_held():
    """A claim the evidence says holds, but the values do not bear out, is not said."""
    R = RNG.uniform(1, 3, size=(3, 4))
    wrong = [_check({F + "elementwise|log": {}}, [F + "elementwise|log"], raw=_raw(np.sqrt(R), R)) for _ in range(2)]
    assert relate(wrong) == []


def test_a_known_mistakes_values_count_when_nothing_is_named_and_a_step_is_said():
    known = [_check({F + "elementwise|log": {}}, [F + "elementwise|log"], known=True, raw=_logs()) for _ in range(2)]
    (relation,) = relate(known)                            # relate runs only when no mistake is named
    assert relation.args == ["log"]
    R = RNG.normal(size=4)
    steps = [_check({F + "step|first:2": {"t": 2}, F + "step|some": {"t": 2}}, [F + "step|first:*", F + "step|some"],
                    known=True, raw=_raw(R + 1, R, step=2)) for _ in range(2)]
    (relation,) = relate(steps)
    assert relation.args == ["first:2"]                    # the specific one, not "some steps"


def test_the_most_specific_of_a_kind_and_names_of_one_relation_as_one():
    holds = {F + "factor|any": {"c": 0.5}, F + "factor|c:0.5": {"c": 0.5},
             F + "factor|expr:1/2": {"form": "1/2"}}
    R = RNG.normal(size=(3, 4))
    (relation,) = relate([_check(holds, [F + "factor|c:*", F + "factor|any", F + "factor|expr:1/2"],
                                 raw=_raw(R / 2, R))] * 2)
    assert relation.args == ["expr:1/2"]
    axes = {F + "order|flip:=axis": {}, F + "order|flip:last": {}, F + "order|flip:1": {}}
    X = RNG.normal(size=(3, 4))
    call = Call(None, None, dict(x=X), keywords=dict(axis=1))
    (relation,) = relate([_check(axes, list(axes), raw=_raw(np.flip(X, 1), X, call=call))] * 2)
    assert relation.args == ["flip:=axis"]                 # one axis, named as the argument named it
    sizes = {F + "factor|expr:1/n_k": {"form": "1/{}", "sizes": {"n_k": 4}},
             F + "factor|expr:1/d_v": {"form": "1/{}", "sizes": {"d_v": 4}}}
    call = Call(None, None, dict(x=X), sizes=dict(n_k=4, d_v=4))
    (relation,) = relate([_check(sizes, list(sizes), raw=_raw(X / 4, X, call=call))] * 2)
    assert relation.args == ["expr:1/n_k"]                 # two sizes equal on every input: the first


def test_relations_never_told_apart_are_said_together_or_not_at_all():
    two = {F + "order|flip:0": {}, F + "order|roll:0:+1": {}}
    R = RNG.normal(size=(2, 3))
    (relation,) = relate([_check(two, list(two), raw=_raw(np.flip(R, 0), R))] * 2)  # two rows: both hold
    assert relation.args == ["flip:0", "roll:0:+1"]
    assert ", or your values" in str(sentences([relation])[0])
    three = RNG.normal(size=(3, 3))
    told_apart = [_check(two, list(two), raw=_raw(np.flip(R, 0), R)),
                  _check({F + "order|flip:0": {}}, list(two), raw=_raw(np.flip(three, 0), three)),
                  _check({F + "order|flip:0": {}}, list(two), raw=_raw(np.flip(three, 0), three))]
    (relation,) = relate(told_apart)
    assert relation.args == ["flip:0"]


def test_parts_with_one_relation_share_a_sentence_and_a_whole_call_comes_first():
    def reference(X):
        return 2 * X, 3 * X

    def data():
        X = RNG.normal(size=(3, 4))
        unit = X / np.linalg.norm(X, axis=-1, keepdims=True)
        return _raw(reference(unit), reference(X), call=Call(None, reference, dict(X=X)), subjects=("f#0", "f#1"))

    holds = {"f#0|scaled|slices:last": {"ndim": 2}, "f#1|scaled|slices:last": {"ndim": 2},
             "f#all|changed|unit:X": {}}
    labels = {"f#0": "Q", "f#1": "K", "f#all": "Q, K"}
    (relation,) = relate([_check(holds, list(holds), labels=labels, raw=data()) for _ in range(2)])
    assert relation.family == "changed" and relation.subject == "Q, K"
    parts = {k: v for k, v in holds.items() if "#all" not in k}
    (relation,) = relate([_check(parts, list(parts), labels=labels, raw=data()) for _ in range(2)])
    assert relation.subject == "Q, K" and "each row of your values" in str(sentences([relation])[0])
