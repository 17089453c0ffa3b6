"""Naming a mistake: the evidence of one check (check.evidence), the diagnosis weighed over a
cell's checks (gradekit.grading.diagnosis), and the property probes.

Synthetic values only: the course's own catalogue is checked end to end in test_course.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradekit.graders import check, probes
from gradekit.results import CellResult, Check, NotebookResult, SubmissionResult
from gradekit.grading.diagnosis import diagnose, notes


def _mismatch(call) -> check.Mismatch:
    with pytest.raises(check.Mismatch) as info:
        call()
    return info.value


def _check(name: str, call) -> Check:
    """Run one comparison as the plugin records it."""
    try:
        call()
    except check.Mismatch as exc:
        return Check(name, False, str(exc), mistake=exc.mistake, candidates=exc.candidates,
                     ruled_out=exc.ruled_out, observations=exc.observations)
    return Check(name, True)


def _cell(*checks: Check) -> CellResult:
    cell = CellResult("test_thing", 2.0, 0.0, list(checks))
    diagnose(cell)
    return cell


# -- the evidence of one check ------------------------------------------------------

def test_coinciding_routes_are_candidates_together_and_the_message_names_none():
    right = np.array([11.0, 12.0, 13.0, 14.0])
    wrong = 2 * right
    exc = _mismatch(lambda: check.array(wrong, right, what="f(x)", mistakes={
        "doubled": wrong, "added itself": right + right, "tripled": 3 * right}))
    assert exc.candidates == ["doubled", "added itself"] and exc.ruled_out == ["tripled"]
    assert exc.mistake is None                       # two candidates: this input alone cannot tell
    assert "doubled" not in str(exc) and "added" not in str(exc)
    assert "4 of 4 values differ" in str(exc) and "11" not in str(exc)   # never the expected values


def test_a_route_that_gives_the_right_answer_or_raises_is_ruled_out_and_none_is_unknown():
    right = np.ones(3)
    exc = _mismatch(lambda: check.array(np.zeros(3), right, what="f(x)", mistakes={
        "zeroed": np.zeros(3), "harmless here": right, "raises here": check.FAILS, "unknown here": None}))
    assert exc.candidates == ["zeroed"] and exc.mistake == "zeroed"
    assert sorted(exc.ruled_out) == ["harmless here", "raises here"]


def test_routes_are_computed_only_for_a_wrong_value():
    calls = []
    check.array([1.0, 2.0], [1.0, 2.0], what="f(x)", mistakes=lambda: calls.append(1) or {})
    assert calls == []


def test_several_values_are_one_check_and_a_route_predicts_all_of_them():
    Q, K = np.eye(2), 2 * np.eye(2)
    routes = {"swapped": (K, Q), "Q used twice": (Q, Q)}
    exc = _mismatch(lambda: check.arrays([Q, Q], [Q, K], what=["Q", "K"], mistakes=routes))
    assert exc.candidates == ["Q used twice"] and exc.ruled_out == ["swapped"]
    assert str(exc).startswith("K: ")              # only the part that differs is reported


def test_mismatch_made_by_hand_keeps_the_old_interface():
    exc = check.Mismatch("q: wrong answer", mistake="thinks so")
    assert exc.mistake == "thinks so" and exc.candidates == ["thinks so"] and exc.ruled_out == []


def test_an_unset_answer_reads_as_no_answer_and_a_function_result_mentions_return():
    assert str(_mismatch(lambda: check.array(None, [1.0], what="tq1_weights"))) == "tq1_weights: no answer given"
    assert str(_mismatch(lambda: check.scalar(None, 1.0, what="tq2_factor"))) == "tq2_factor: no answer given"
    assert "`return`" in str(_mismatch(lambda: check.array(None, [1.0], what="softmax(x) on a vector")))


def test_choice_and_scalar_record_evidence():
    exc = _mismatch(lambda: check.scalar(4.0, 2.0, what="factor", mistakes={"squared": 4.0, "halved": 1.0}))
    assert exc.candidates == ["squared"] and exc.ruled_out == ["halved"]
    exc = _mismatch(lambda: check.choice("yes", "no", what="answer", mistakes={"thinks yes": "YES "}))
    assert exc.candidates == ["thinks yes"]


def test_an_exact_answer_is_told_wrong_without_a_tolerance():
    assert str(_mismatch(lambda: check.scalar(5, 4, what="count", rtol=0, atol=0))) == "count: wrong value"
    assert "tolerance rtol=1e-06" in str(_mismatch(lambda: check.scalar(5.0, 4.0, what="mean", rtol=1e-6)))


# -- the diagnosis of a cell ------------------------------------------------------

def _attention_like(catalogue_has_raw_inputs: bool) -> list[Check]:
    """The issue's case: an output that mixes X instead of V. On the hand example W_k = I, so
    "W_k for the values" gives the same numbers as "X for the values"; elsewhere it does not."""
    rng = np.random.default_rng(0)
    checks = []
    for hand in (True, False, False, False):
        X = rng.normal(size=(3, 3))
        W_k = np.eye(3) if hand else rng.normal(size=(3, 3))
        W_v = rng.normal(size=(3, 3))
        routes = {"W_k for the values": X @ W_k, "W_v squared": X @ W_v @ W_v}
        if catalogue_has_raw_inputs:
            routes["no value projection"] = X
        checks.append(_check("attention", lambda: check.array(X, X @ W_v, what="out", mistakes=routes)))
    return checks


def test_a_route_that_fits_only_where_it_coincides_with_another_is_never_named():
    cell = _cell(*_attention_like(catalogue_has_raw_inputs=False))
    assert cell.findings == [] and cell.diagnosis == [] and notes(cell) == []
    assert not any(c.mistake for c in cell.checks)


def test_the_route_that_fits_every_input_is_named_with_the_checks_it_rests_on():
    cell = _cell(*_attention_like(catalogue_has_raw_inputs=True))
    assert cell.diagnosis == ["no value projection"]
    assert notes(cell) == ["Likely mistake: no value projection (your values match it on 4 of 4 failed checks)."]
    assert all(c.mistake == "no value projection" for c in cell.checks)


def test_coincidences_resolved_on_different_inputs_still_name_the_route():
    """Always the last axis: coincides with "axis 1" on 2-d inputs and with "axis 2" on 3-d ones;
    each of those is told apart on the other input, so the last axis is named."""
    a = _check("2-d", lambda: check.array([2.0], [1.0], what="a", mistakes={
        "last axis": [2.0], "axis 1": [2.0], "axis 2": check.FAILS}))
    b = _check("3-d", lambda: check.array([5.0], [1.0], what="b", mistakes={
        "last axis": [5.0], "axis 1": [3.0], "axis 2": [5.0]}))
    assert _cell(a, b).diagnosis == ["last axis"]


def test_routes_that_coincide_on_every_input_are_both_given():
    a = _check("one", lambda: check.array([2.0], [1.0], what="a", mistakes={"A": [2.0], "B": [2.0], "C": [3.0]}))
    assert a.coinciding == ["A", "B"]     # what gradekit check reports as "no evidence on those inputs"
    cell = _cell(a)
    assert cell.diagnosis == ["A", "B"]
    assert notes(cell) == ["Your values fit more than one known mistake: “A” or “B”."]


def test_weak_evidence_names_nothing():
    """A route unknown on most failures (and matching one) is weak; a route ruled out once is out."""
    fits_once = _check("one", lambda: check.array([2.0], [1.0], what="a", mistakes={"A": [2.0], "B": [3.0]}))
    unknown = [_check(f"n{i}", lambda: check.array([7.0], [1.0], what="b", mistakes={"A": None, "B": [3.0]}))
               for i in range(2)]
    assert _cell(fits_once, *unknown).findings == []
    against = _check("two", lambda: check.array([9.0], [1.0], what="c", mistakes={"A": [8.0], "B": [3.0]}))
    assert _cell(fits_once, against).findings == []


def test_checks_about_different_things_get_a_finding_each_with_what_it_is_about():
    weights = _check("the weights", lambda: check.array([0.67], [0.5], what="w", mistakes={"lecture's": [0.67]}))
    output = _check("the output", lambda: check.scalar(2.0, 1.0, what="y", mistakes={"forgot W_v": 2.0}))
    cell = _cell(weights, output)
    assert [f.mistakes for f in cell.findings] == [["lecture's"], ["forgot W_v"]]
    assert notes(cell) == ["the weights: likely mistake: lecture's.", "the output: likely mistake: forgot W_v."]


def test_a_finding_the_message_already_states_is_not_repeated():
    chosen = Check("concept check (mc_1)", False, "mc_1: wrong answer -- confuses A with B",
                   candidates=["confuses A with B"])
    cell = _cell(chosen)
    assert cell.diagnosis == ["confuses A with B"] and notes(cell) == []


def test_failures_without_evidence_are_ignored_and_passes_name_nothing():
    crashed = Check("crash", False, "calling `f` raised ValueError: boom")
    assert _cell(crashed, Check("fine", True)).findings == []


def test_findings_survive_the_results_file():
    cell = _cell(*_attention_like(catalogue_has_raw_inputs=True))
    result = SubmissionResult("s", "a", [NotebookResult("nb", [cell])])
    again = SubmissionResult.from_dict(result.to_dict()).cell("test_thing")
    assert again.findings == cell.findings and notes(again) == notes(cell)
    assert again.checks[0].candidates == cell.checks[0].candidates


# -- probes ------------------------------------------------------------------------

def test_probes_describe_an_unexplained_wrong_value_only():
    V = np.arange(6.0).reshape(3, 2)
    mean = np.repeat(V.mean(axis=0, keepdims=True), 2, axis=0)
    exc = _mismatch(lambda: check.array(mean, np.ones((2, 2)), what="out", probes=lambda: [
        probes.unchanged_when(lambda: mean.copy(), mean, subject="Your output", changed="the weights"),
        probes.identical_rows(mean, subject="your output"),
        probes.equals(mean, V, subject="Your output", other_name="V"),       # sees nothing: says nothing
    ]))
    assert exc.observations == ["Your output stayed the same when the grader changed the weights.",
                                "Every row of your output is the same."]
    assert str(exc).endswith(" ".join(exc.observations))
    explained = _mismatch(lambda: check.array(mean, np.ones((2, 2)), what="out", mistakes={"mean": mean},
                                              probes=lambda: ["never run"]))
    assert explained.observations == []


def test_probes_that_cannot_look_say_nothing():
    def boom():
        raise RuntimeError("the student's code failed")
    assert probes.unchanged_when(boom, [1.0], subject="x", changed="y") is None
    assert probes.slices_not_summing_to_one("not numbers", subject="x", axis=3) is None
    assert probes.slices_not_summing_to_one([[0.5, 0.5], [0.2, 0.8]], subject="x") is None
    assert probes.slices_not_summing_to_one([[0.5, 0.6]], subject="the rows") == "Not all the rows sum to 1."
    assert probes.negative_entries([0.1, -0.2], subject="your weights") == "Some of your weights are negative."


def test_the_equivariance_probe_permutes_rows_or_rows_and_columns():
    X = np.arange(6.0).reshape(3, 2)
    order = [2, 0, 1]
    assert probes.not_equivariant(lambda: X[order], X, order, subject="it", items="the rows") is None
    assert probes.not_equivariant(lambda: X, X, order, subject="your output", items="the tokens") == \
        "Reordering the tokens does not reorder your output the same way: it is not permutation-equivariant."
    table = np.arange(9.0).reshape(3, 3)
    assert probes.not_equivariant(lambda: table[order][:, order], table, order, subject="w", items="t",
                                  table=True) is None
