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


# -- functions and objects as arguments -------------------------------------------------------------

HIGHER_ORDER = textwrap.dedent('''
    import os, time
    import numpy as np

    def double(x):
        return 2 * x

    def apply(fn, x):
        return fn(x)

    def apply_twice(fn, x):
        return fn(fn(x))

    def is_equivariant(attention, X, perm):
        """A property tester: permuting the rows of X permutes attention's output the same way."""
        return bool(np.allclose(attention(X)[perm], attention(X[perm])))

    def attention(X):
        S = X @ X.T / np.sqrt(X.shape[1])
        W = np.exp(S - S.max(axis=1, keepdims=True))
        return (W / W.sum(axis=1, keepdims=True)) @ X

    def blockwise(X, score, block=2):
        return np.concatenate([score(X[i:i + block], X) for i in range(0, len(X), block)])

    def make_scaler(c):
        def scale(x):
            return c * x
        return scale

    def todo(x):
        raise NotImplementedError

    def hostile(x):
        if x == "hang":
            while True:
                pass
        if x == "die":
            os._exit(7)
        if x == "read":
            return open("/etc/shadow").read()
        return x

    def hands_over_an_object(fn):
        return fn(object())

    def hands_over_a_function(fn):
        return fn(lambda: 1)

    def hands_over_nested(fn):
        return fn([1, {"a": (2, double)}])

    def swallows(fn):
        try:
            return fn(1)
        except Exception as exc:
            return type(exc).__name__ + ": " + str(exc)

    def floods(fn):
        """a tight loop calling the grader back, every failure swallowed"""
        while True:
            try:
                fn(1.0)
            except Exception:
                pass

    def huge(fn):
        return fn(np.zeros((1000, 1000)))             # 7.6 MiB in one call

    def wide_empty(fn):
        return fn(np.zeros((10 ** 7, 0)))             # no bytes, ten million rows

    def table(fn, n):
        return fn(np.ones((n, 1)), np.ones((n, 1)))  # small arguments, an n × n table in the grader

    class Box:
        pass

    def hands_over_deep_object(fn):
        return fn([[{"a": [(1, Box())]}]])
''')


@pytest.fixture
def higher():
    sb = Counting(Limits(call_timeout=1.0, cell_timeout=10.0))
    results = sb.run_cells([{"id": "code", "source": HIGHER_ORDER}])
    assert all(r["ok"] for r in results), results
    yield sb
    sb.shutdown()


class Ran:
    """A function of the grader's that notes, in the grader's process, every call it gets."""

    def __init__(self, function):
        self.function, self.calls = function, []
        self.__name__ = getattr(function, "__name__", "ran")

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.function(*args, **kwargs)


def _reference_attention(X):
    S = X @ X.T / np.sqrt(X.shape[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return (W / W.sum(axis=1, keepdims=True)) @ X


def test_a_students_function_passed_to_a_students_function_runs_in_the_sandbox(higher):
    student = _student(higher)
    rng = np.random.default_rng(1)
    X, perm = rng.normal(size=(5, 3)), rng.permutation(5)
    assert student.apply(student.double, 3) == 6
    assert np.allclose(student.apply_twice(student.double, np.arange(3.0)), 4 * np.arange(3.0))
    assert student.is_equivariant(student.attention, X, perm) is True
    assert student.is_equivariant(student.double, X, perm) is True      # rows scaled: equivariant too
    assert student.is_equivariant(student.make_scaler(2), X, perm) is True   # a closure the student's code returned


def test_a_reference_function_passed_to_a_students_function_runs_in_the_grader(higher):
    student = _student(higher)
    rng = np.random.default_rng(2)
    X, perm = rng.normal(size=(6, 4)), rng.permutation(6)
    reference = Ran(_reference_attention)
    assert student.is_equivariant(reference, X, perm) is True
    assert len(reference.calls) == 2 and np.array_equal(reference.calls[0][0][0], X)  # called here, on plain data
    wrong = Ran(lambda X: X[::-1] @ X.T @ X)  # a deliberately wrong attention: not equivariant
    assert student.is_equivariant(wrong, X, perm) is False
    score = Ran(lambda q, k: q @ k.T)
    assert np.allclose(student.blockwise(X, score), X @ X.T)
    assert [a[0].shape for a, _ in score.calls] == [(2, 4)] * 3


def test_functions_as_arguments_in_a_map(higher):
    student = _student(higher)
    before = higher.requests
    plus_one = Ran(lambda v: v + 1)
    got = list(student.apply.map([call(student.double, 1), call(plus_one, 2), call(student.double, 3),
                                  call(plus_one, 4)]))
    assert got == [2, 3, 6, 5] and len(plus_one.calls) == 2
    assert higher.requests - before == 1  # the student's functions by name, the grader's by callback: one request
    scale = student.make_scaler(5)          # an object of the student's (a closure): one call at a time
    assert list(student.apply.map([call(scale, 1), call(scale, 2)])) == [5, 10]


def test_a_hostile_students_function_as_an_argument_is_contained(higher):
    student = _student(higher)
    with pytest.raises(StudentFailure, match="did not finish"):
        student.apply(student.hostile, "hang")
    assert student.apply_twice(student.double, 2) == 8       # a fresh child; only the hanging call lost
    with pytest.raises(StudentFailure, match="killed|exited with status 7"):
        student.apply_twice(student.hostile, "die")
    with pytest.raises(StudentFailure, match="No such file|Permission denied"):
        student.apply_twice(student.hostile, "read")
    assert student.is_equivariant(student.attention, np.eye(3), np.array([2, 0, 1])) is True


def test_the_students_code_cannot_hand_the_grader_its_own_objects_or_functions(higher):
    student = _student(higher)
    noted = Ran(lambda *a: "ran")
    for name in ("hands_over_an_object", "hands_over_a_function", "hands_over_nested", "hands_over_deep_object"):
        with pytest.raises(StudentFailure, match="TypeError: .*not your objects"):
            getattr(student, name)(noted)
    assert noted.calls == []  # the grader's function never ran on anything of theirs
    # ... and what the student's code may catch, it catches: the call goes on
    assert student.swallows(Ran(lambda v: 1 / 0)) == "ZeroDivisionError: in the grader's <lambda>: ZeroDivisionError: division by zero"


@pytest.fixture
def flooded():
    sb = Sandbox(Limits(cell_timeout=10.0, callback_calls=1000))
    assert all(r["ok"] for r in sb.run_cells([{"id": "code", "source": HIGHER_ORDER}]))
    yield sb
    sb.shutdown()


def test_a_callback_flood_is_stopped_and_charged_to_the_student_in_one_line(flooded):
    """A student's loop calling the grader's function back without end (every failure swallowed):
    stopped at callback_calls (the grader's function ran exactly that many times), in one line,
    the student's failure -- not suspected of being the grader's -- and the next call goes on in a
    fresh child."""
    from gradekit.grading.harness.plugin import feedback_message, is_grader_error

    student = _student(flooded)
    score = Ran(lambda v: v)
    score.__name__ = "score"
    started = time.monotonic()
    with pytest.raises(StudentFailure) as failed:
        student.floods(score)
    took = time.monotonic() - started
    message = str(feedback_message(failed.value))
    assert message == ("`floods` was stopped: it called the grader's `score` more than 1000 times in one call "
                       "(an endless loop? the limit is callback_calls)"), message
    assert not is_grader_error(failed.value)
    assert len(score.calls) == 1000 and flooded.overruns == 1 and flooded.timeouts == 0
    assert took < flooded.limits.call_timeout, took  # never a hang
    assert student.apply(student.double, 2) == 4


def test_huge_or_wide_callback_arguments_are_refused_before_the_grader_runs(higher):
    student = _student(higher)
    noted = Ran(lambda *a: 0.0)
    with pytest.raises(StudentFailure, match=r"^`huge` was stopped: it passed the grader's `<lambda>` 7\.6 MiB of "
                                             r"arguments in one call, more than the 4 MiB allowed"):
        student.huge(noted)
    with pytest.raises(StudentFailure, match=r"^`wide_empty` was stopped: it passed .* 76\.3 MiB"):
        student.wide_empty(noted)
    assert noted.calls == []  # the grader's function never saw them
    assert student.apply(noted, np.zeros((100, 100))) == 0.0  # an ordinary argument still crosses


def test_a_table_the_student_sized_fails_to_allocate_in_the_grader_not_the_machine(higher):
    """Small arguments (a (n, 1) pair, well under callback_size) that make the grader's own function
    build an n × n table: with n = 20,000 that is 3 GiB, past callback_memory -- the student's
    call is stopped, this process is unharmed and its address space limit is back as it was."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS)
    student = _student(higher)
    outer = Ran(lambda q, k: q @ k.T)
    assert student.table(outer, 3).shape == (3, 3)
    with pytest.raises(StudentFailure, match=r"^`table` was stopped: the grader's `<lambda>` needed more than 1024 MiB"):
        student.table(outer, 20_000)
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert np.zeros(50_000_000).nbytes == 400_000_000  # this process allocates as before


def test_a_slow_callback_is_cut_short_and_its_thread_stopped():
    """A grader's function still running at callback_seconds: the student's call is stopped then
    (not when the function would have ended), and the function is stopped at its next step."""
    sb = Sandbox(Limits(call_timeout=5.0, cell_timeout=10.0, callback_seconds=0.5))
    try:
        assert all(r["ok"] for r in sb.run_cells([{"id": "code", "source": HIGHER_ORDER}]))
        student = _student(sb)
        steps = [0]

        def spin(x):
            while True:
                steps[0] += 1

        started = time.monotonic()
        with pytest.raises(StudentFailure, match=r"^`apply` was stopped: the grader's `spin` spent over 0\.5 s"):
            student.apply(spin, 1)
        assert time.monotonic() - started < 3.0
        time.sleep(0.2)
        seen = steps[0]
        time.sleep(0.3)
        assert steps[0] == seen > 0  # the spinning function was told to stop, and stopped
        assert student.apply(lambda v: v + 1, 1) == 2  # a fresh callback thread
    finally:
        sb.shutdown()


def test_a_flood_in_one_call_of_a_map_fails_that_call_only(flooded):
    student = _student(flooded)
    score = Ran(lambda v: v)
    results = student.apply.map([call(student.double, 1), call(student.floods, score), call(student.double, 3)])
    assert results[0] == 2 and results[2] == 6
    with pytest.raises(StudentFailure, match="was stopped: it called the grader's"):
        results[1]


def test_a_forged_callback_runs_nothing_of_the_graders_it_did_not_give():
    """A request naming a function the grader did not give (a forged frame) is refused; and
    nothing the sandbox sends decodes to a function on the grader's side."""
    from gradekit.sandbox import protocol as P

    class Wire:
        def __init__(self):
            self.sent = []

        def write(self, data):
            self.sent.append(data)

        def flush(self):
            pass

    noted = Ran(lambda *a: "ran")
    wire = Wire()
    sandbox = Sandbox(Limits())
    for name in ("#1", "os.system", "__import__", 3):
        sandbox._answer_callback(wire, {"op": "callback", "name": name}, [], {"#0": noted})
    assert noted.calls == [] and len(wire.sent) == 4
    assert all(b'"LookupError"' in frame for frame in wire.sent)
    for tree in ({"$fn": "double"}, {"$cb": "#0", "name": "x"}):
        with pytest.raises(P.ProtocolError):
            P.decode(tree, [])


def test_the_graders_own_mistakes_are_its_own_never_the_students(higher):
    from gradekit.errors import BoundaryError
    from gradekit.grading.harness.plugin import is_grader_error

    student = _student(higher)
    with pytest.raises(BoundaryError, match="a value of type set cannot cross"):
        student.apply(double_set := {1, 2}, 1)
    assert double_set == {1, 2}
    with pytest.raises(BoundaryError, match="calls the student's code itself"):
        student.apply(lambda v: student.double(v), 2)
    with pytest.raises(BoundaryError, match="returned a set, which cannot cross"):
        student.apply(lambda v: {v}, 2)
    with pytest.raises(BoundaryError):
        list(student.apply.map([call(lambda v: {v}, 2)]))
    assert is_grader_error(BoundaryError("x"))
    assert student.apply(student.double, 21) == 42  # the sandbox is unharmed


def test_a_graders_function_that_raises_is_suspected_not_simply_charged(higher):
    """The student's code failed after the grader's function raised: the student's failure, said
    as such, and suspect -- the pipeline grades the answer key to tell a broken grader from a
    student's wrong arguments."""
    from gradekit.errors import CallbackFailure
    from gradekit.grading.harness.plugin import feedback_message, is_grader_error

    student = _student(higher)
    with pytest.raises(CallbackFailure) as failed:
        student.blockwise(np.eye(4), lambda q, k: q @ k[:3])   # the student's code is right; the grader's function is not
    message = str(feedback_message(failed.value))
    assert message.startswith("calling `blockwise` raised ValueError: in the grader's <lambda>: ValueError: matmul"), message
    assert is_grader_error(failed.value)
    with pytest.raises(CallbackFailure):
        list(student.apply.map([call(lambda v: 1 / 0, 2)]))
    assert student.apply(lambda v: v, 3) == 3


def test_the_function_not_implemented_or_not_defined_is_the_one_named(higher):
    student = _student(higher)
    with pytest.raises(StudentFailure) as failed:
        student.apply(student.todo, 1)
    assert str(failed.value) == "`todo` is not implemented yet (NotImplementedError)"
    with pytest.raises(StudentFailure) as failed:
        student.is_equivariant(student.not_written, np.eye(2), np.array([1, 0]))
    assert str(failed.value) == "`not_written` is not defined in your notebook"
    with pytest.raises(StudentFailure) as failed:
        student.todo(1)
    assert str(failed.value) == "`todo` is not implemented yet (NotImplementedError)"


def test_a_wrong_value_of_a_call_with_a_function_among_its_inputs_is_related_as_any_other(higher):
    """The relation search passes a function input through unchanged (the grader's stays a
    callback) and changes the arrays: the student's blockwise scores that are twice the right
    ones are found to be twice them."""
    student = _student(higher)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(4, 3))
    score = lambda q, k: 2 * q @ k.T   # the student's blockwise is right: given a doubled score
    right = lambda X, score: X @ X.T
    with pytest.raises(Mismatch) as failed:
        check.array(student.blockwise(X, score), right(X, score), what="blockwise(X, score)",
                    call=check.Call(student.blockwise, right, dict(X=X, score=score)))
    assert failed.value.relations is not None and any("factor" in key for key in failed.value.relations["holds"])
