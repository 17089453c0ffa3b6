"""gradekit.graders.student: what a grader's ``student`` fixture does, against a real sandbox.

``student.f.map([call(...), ...])`` must give a grader what the same calls made one
by one give it -- the same values, the same failures with the same messages, the
same give-ups after a timeout, the same crashes counted -- in fewer requests. A
method seen once is called without being looked up again, and still behaves as
Python's lookup would when the student's code changes it.
"""

from __future__ import annotations

import textwrap
import time

import numpy as np
import pytest

from gradekit.errors import Mismatch, StudentFailure
from gradekit.graders import check
from gradekit.graders.relations.engine import DEEP_SEARCHES
from gradekit.graders.student import GiveUp, Results, Student, StudentFunction, call
from gradekit.sandbox.bwrap import bwrap_path
from gradekit.sandbox.client import Sandbox
from gradekit.sandbox.limits import Limits

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

CODE = textwrap.dedent('''
    import os, time
    import numpy as np

    made = []

    def f(x, scale=2):
        made.append(x)
        tag = x if isinstance(x, str) else None
        if tag == "hang":
            while True:
                pass
        if tag == "die":
            os._exit(3)
        if tag == "raise":
            raise ValueError("no")
        if tag == "none":
            return None
        return x * scale

    def attend(x):
        return softmax(x) * 2      # softmax: the reference's, answered by the grader

    def calls():
        return list(made)

    def same(x, scale=1):
        return x

    def ignores_k(q, k):
        made.append("ignores_k")
        return np.sin(q)           # the right one is sin(q) * (1 + k**2): k is left out

    class Box:
        def __init__(self):
            self.items = []

        def put(self, x):
            self.items.append(x)
            return len(self.items)

        def spoil(self, how):
            if how == "value":
                self.put = 5
            elif how == "function":
                self.put = lambda x: "replaced"
            elif how == "class":
                Box.put = lambda self, x: "class replaced"
            return how
''')


class Reference:
    @staticmethod
    def softmax(x):
        e = np.exp(x - np.max(x))
        return e / e.sum()

    @staticmethod
    def ignores_k(q, k):
        return np.sin(q) * (1 + k**2)


class Counting(Sandbox):
    """A sandbox that counts its requests."""

    requests = 0

    def _exchange(self, *args, **kwargs):
        self.requests += 1
        return super()._exchange(*args, **kwargs)

    def _map_round(self, *args, **kwargs):
        self.requests += 1
        return super()._map_round(*args, **kwargs)


@pytest.fixture
def sandbox():
    sb = Counting(Limits(call_timeout=1.0, cell_timeout=10.0))
    results = sb.run_cells([{"id": "code", "source": CODE}])
    assert all(r["ok"] for r in results), results
    yield sb
    sb.shutdown()


def _student(sandbox, budget=None) -> Student:
    return Student(sandbox, Reference, give_up=GiveUp(budget))


def _outcomes(results) -> list:
    """Each result, or the message its reading raised."""
    out = []
    for index in range(len(results)):
        try:
            out.append(results[index])
        except StudentFailure as exc:
            out.append(f"raised: {exc}")
    return out


def _one_by_one(student, name, inputs) -> list:
    out = []
    for x in inputs:
        try:
            out.append(getattr(student, name)(x))
        except StudentFailure as exc:
            out.append(f"raised: {exc}")
    return out


def test_map_gives_what_the_calls_give_in_one_request(sandbox):
    student = _student(sandbox)
    assert isinstance(student.f, StudentFunction) and student.f.__name__ == "f"
    before = sandbox.requests
    results = student.f.map([call(1), call(2, scale=5), call("none"), call("raise"), call(np.arange(2))])
    assert sandbox.requests == before + 1
    assert isinstance(results, Results) and len(results) == 5
    single = [student.f(1), student.f(2, scale=5), student.f("none")]
    assert [results[0], results[1], results[2]] == single == [2, 10, None]
    with pytest.raises(StudentFailure) as failed:
        results[3]
    with pytest.raises(StudentFailure) as alone:
        student.f("raise")
    assert str(failed.value) == str(alone.value) and "ValueError: no" in str(failed.value)
    assert results[-1].tolist() == [0, 2] and results[4:][0].tolist() == [0, 2]
    assert list(student.f.map([])) == []
    with pytest.raises(TypeError, match="call"):
        student.f.map([(1,)])


def test_failures_are_raised_when_read_in_order(sandbox):
    """Reading the results in order and stopping at the first failure: as the loop of calls."""
    student = _student(sandbox)
    seen = []
    with pytest.raises(StudentFailure, match="ValueError"):
        for x, got in zip([1, "raise", 3], student.f.map([call(x) for x in [1, "raise", 3]])):
            seen.append((x, got))
    assert seen == [(1, 2)]


def test_a_timeout_in_a_map_is_given_up_on_as_in_single_calls(sandbox):
    inputs = [1, "hang", 3]
    mapped = _outcomes(_student(sandbox).f.map([call(x) for x in inputs]))
    started = time.monotonic()
    single = _one_by_one(_student(sandbox), "f", inputs)
    assert time.monotonic() - started < 1.9  # one timeout, then not called again
    assert mapped == single
    assert mapped[0] == 2 and "did not finish" in mapped[1] and "not run" in mapped[2]
    assert sandbox.timeouts == 2  # one each way


def test_a_timeout_nobody_reads_gives_nothing_up(sandbox):
    """A map calls every function of the batch; a timeout the grader never reads (it stopped at an
    earlier wrong value) does not count against later checks, as the call was never made then."""
    student = _student(sandbox)
    results = student.f.map([call(1), call("hang")])
    assert results[0] == 2
    assert student.f(3) == 6  # not given up: nobody saw f time out
    with pytest.raises(StudentFailure, match="did not finish"):
        results[1]
    with pytest.raises(StudentFailure, match="not run: `f` timed out on an earlier check"):
        student.f(3)
    assert _outcomes(student.f.map([call(1)])) == [
        "raised: not run: `f` timed out on an earlier check (no answer within 1 s (endless loop?))"
    ]


def test_a_crash_in_a_map_costs_what_it_costs_in_single_calls(sandbox):
    inputs = [1, "die", 3, 4]
    mapped = _outcomes(_student(sandbox).f.map([call(x) for x in inputs]))
    kills = sandbox.kills
    single = _one_by_one(_student(sandbox), "f", inputs)
    assert mapped == single
    assert mapped[0] == 2 and "status 3" in mapped[1] and mapped[2:] == [6, 8]
    assert kills == 1 and sandbox.kills == 2


def test_after_a_crash_the_rest_is_made_only_when_read(sandbox):
    student = _student(sandbox)
    results = student.f.map([call(1), call("die"), call("die"), call(4)])
    assert results[0] == 2
    with pytest.raises(StudentFailure, match="status 3"):
        results[1]
    assert sandbox.kills == 1  # the second "die" was not made: nobody has read it
    assert sandbox.call("calls") == [1]  # a fresh process, with the calls before the crash made again
    with pytest.raises(StudentFailure, match="status 3"):
        results[2]
    assert results[3] == 8 and sandbox.kills == 2


def test_the_budget_stops_a_map(sandbox):
    student = _student(sandbox, budget=0.5)
    time.sleep(0.6)
    expected = "raised: not run: this notebook used up its grading time (0.5 s) on earlier checks"
    assert _outcomes(student.f.map([call(1), call(2)])) == [expected, expected]


def test_reference_helpers_answer_inside_a_map(sandbox):
    x = np.array([1.0, 2.0, 3.0])
    student = _student(sandbox).with_reference("softmax")
    got = student.attend.map([call(x), call(2 * x)])
    assert np.allclose(got[0], 2 * Reference.softmax(x)) and np.allclose(got[1], 2 * Reference.softmax(2 * x))
    assert np.allclose(student.attend(x), got[0])


def test_objects_as_arguments_are_called_one_by_one(sandbox):
    student = _student(sandbox)
    box = student.Box()
    before = sandbox.requests
    results = student.same.map([call(box), call(box)])
    assert sandbox.requests - before == 2
    assert [repr(r) for r in results] == [repr(box), repr(box)]


def test_a_method_is_looked_up_once(sandbox):
    student = _student(sandbox)
    box = student.Box()
    before = sandbox.requests
    assert [box.put(i) for i in range(4)] == [1, 2, 3, 4]
    assert sandbox.requests - before == 5  # one look-up, four calls
    assert box.items == [0, 1, 2, 3]


@pytest.mark.parametrize("how, then", [("function", "replaced"), ("class", "class replaced")])
def test_a_method_the_student_changes_is_looked_up_again(sandbox, how, then):
    student = _student(sandbox)
    box = student.Box()
    assert box.put(1) == 1 and box.put(2) == 2
    assert box.spoil(how) == how
    assert box.put(3) == then
    assert box.put(4) == then


def test_a_method_turned_into_a_value_fails_as_python_would(sandbox):
    student = _student(sandbox)
    box = student.Box()
    assert box.put(1) == 1
    box.spoil("value")
    with pytest.raises(TypeError, match="'int' object is not callable"):
        box.put(2)
    assert box.put == 5


@pytest.mark.parametrize("first", ["seen", "unseen"])
def test_a_method_of_an_object_lost_in_a_restart_is_lost(sandbox, first):
    """Whether its method was seen before or not, an object of a process that died fails alike."""
    student = _student(sandbox)
    boxes = {"seen": student.Box(), "unseen": student.Box()}
    assert boxes["seen"].put(1) == 1
    with pytest.raises(StudentFailure):
        student.f("die")
    messages = []
    for name in (first, "unseen" if first == "seen" else "seen"):
        with pytest.raises(StudentFailure) as failed:
            boxes[name].put(2)
        messages.append(str(failed.value))
    # the first look after the crash meets a process that never knew the object; then it is known lost
    assert messages == ["calling `Box.put` raised ProtocolError: unknown handle",
                        "calling `Box.put` raised Lost: this object was lost when the student's code was restarted"]


def test_the_relation_search_calls_a_mapped_function_again_within_the_notebooks_budget(sandbox):
    """A value read from a map is checked as a single call's: the independence probe calls the
    student's function again (one call each, q or k changed) and finds the output does not depend on
    k; the notebook's count of such searches (GiveUp.searched) bounds them to DEEP_SEARCHES a cell, the last
    asked only about what the others found (GiveUp.found)."""
    student = _student(sandbox)
    student._give_up.cell = "test_cell"
    rng = np.random.default_rng(7)
    inputs = [(rng.normal(size=(3, 4)), rng.normal(size=(3, 4))) for _ in range(DEEP_SEARCHES + 1)]
    results = student.ignores_k.map([call(q, k) for q, k in inputs])
    assert sandbox.call("calls") == ["ignores_k"] * len(inputs)
    found = []
    for (q, k), got in zip(inputs, results, strict=True):
        before = len(sandbox.call("calls"))
        with pytest.raises(Mismatch) as failed:
            check.array(got, Reference.ignores_k(q, k), what="ignores_k(q, k)",
                        call=check.Call(student.ignores_k, Reference.ignores_k, dict(q=q, k=k)))
        evidence = failed.value.relations
        assert evidence is not None
        found.append((evidence["holds"].get("ignores_k#0|independent|k"), "ignores_k#0|independent|q" in evidence["holds"],
                      len(sandbox.call("calls")) - before))
    # holds (no detail), not for q; two calls made again (q, k changed, in one request); the last deep search
    # is asked only about what the earlier ones found (k): one call
    deep = [({}, False, 2)] * (DEEP_SEARCHES - 1) + [({}, False, 1)]
    assert found[:DEEP_SEARCHES] == deep, found
    assert found[DEEP_SEARCHES] == (None, False, 0)  # over the budget: not called again
    assert student._give_up.searched["test_cell:ignores_k#0"] == DEEP_SEARCHES + 1
