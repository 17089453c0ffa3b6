"""gradekit.grading.relate: the rules a relation is said by, on hand-made evidence."""

from __future__ import annotations

from gradekit.grading.relate import relate, sentences
from gradekit.results import Check


def _check(holds: dict, tested=(), known=False, labels=None) -> Check:
    evidence = {"tested": list(tested), "holds": holds, "labels": labels or {}, "known": known}
    return Check("a case", False, "values differ", evidence=evidence)


F = "f#0|"


def test_two_agreeing_checks_and_none_against():
    both = [_check({F + "elementwise|log": {}}, [F + "elementwise|log"]) for _ in range(2)]
    (relation,) = relate(both)
    assert (relation.family, relation.args, relation.failed, relation.tried) == ("elementwise", ["log"], 2, 2)
    against = both + [_check({}, [F + "elementwise|log"])]
    assert relate(against) == []                           # tried on a third and false there
    untried = both + [_check({}, [F + "factor|c:*"])]
    (relation,) = relate(untried)                          # not tried on the third: neither for nor against
    assert relation.tried == 2 and relation.failed == 3
    assert "on the 2 of 3 failed checks where it was tried" in str(sentences([relation])[0])


def test_a_known_mistakes_values_are_no_evidence_but_a_step_is():
    known = [_check({F + "elementwise|log": {}}, [F + "elementwise|log"], known=True) for _ in range(2)]
    assert relate(known) == []
    steps = [_check({F + "step|first:2": {"t": 2}, F + "step|some": {"t": 2}}, [F + "step|first:*", F + "step|some"],
                    known=True) for _ in range(2)]
    (relation,) = relate(steps)
    assert relation.args == ["first:2"]                    # the specific one, not "some steps"


def test_the_most_specific_of_a_kind_and_names_of_one_relation_as_one():
    holds = {F + "factor|any": {"c": 0.5}, F + "factor|c:0.5": {"c": 0.5},
             F + "factor|expr:1/2": {"form": "1/2"}}
    (relation,) = relate([_check(holds, [F + "factor|c:*", F + "factor|any", F + "factor|expr:1/2"])] * 2)
    assert relation.args == ["expr:1/2"]
    axes = {F + "order|flip:=axis": {}, F + "order|flip:last": {}, F + "order|flip:1": {}}
    (relation,) = relate([_check(axes, list(axes))] * 2)
    assert relation.args == ["flip:=axis"]                 # one axis, named as the argument named it
    sizes = {F + "factor|expr:1/n_k": {"form": "1/{}", "sizes": {"n_k": 4}},
             F + "factor|expr:1/d_v": {"form": "1/{}", "sizes": {"d_v": 4}}}
    (relation,) = relate([_check(sizes, list(sizes))] * 2)
    assert relation.args == ["expr:1/n_k"]                 # two sizes equal on every input: the first


def test_relations_never_told_apart_are_said_together_or_not_at_all():
    two = {F + "order|flip:0": {}, F + "order|roll:0:+1": {}}
    (relation,) = relate([_check(two, list(two))] * 2)
    assert relation.args == ["flip:0", "roll:0:+1"]
    assert ", or your values" in str(sentences([relation])[0])
    told_apart = [_check(two, list(two)), _check({F + "order|flip:0": {}}, list(two)),
                  _check({F + "order|flip:0": {}}, list(two))]
    (relation,) = relate(told_apart)
    assert relation.args == ["flip:0"]


def test_parts_with_one_relation_share_a_sentence_and_a_whole_call_comes_first():
    holds = {"f#0|scaled|slices:last": {"ndim": 2}, "f#1|scaled|slices:last": {"ndim": 2},
             "f#all|changed|unit:X": {}}
    labels = {"f#0": "Q", "f#1": "K", "f#all": "Q, K"}
    (relation,) = relate([_check(holds, list(holds), labels=labels)] * 2)
    assert relation.family == "changed" and relation.subject == "Q, K"
    parts = {k: v for k, v in holds.items() if "#all" not in k}
    (relation,) = relate([_check(parts, list(parts), labels=labels)] * 2)
    assert relation.subject == "Q, K" and "each row of your values" in str(sentences([relation])[0])
