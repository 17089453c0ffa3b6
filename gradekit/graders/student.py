"""The ``student`` fixture: the student's namespace, seen through the sandbox.

``student.standardize(x, axis=0)`` runs the student's function in the sandbox and
returns plain arrays and numbers; ``student["answer"]`` reads a variable. ``student.with_reference("standardize", ...)``
runs calls with those names of the student's namespace replaced by the
reference implementations (answered by the trusted side over the protocol),
so that a bug in one exercise is not charged again on the exercises built on
it.

``student.standardize.map([call(x, axis=0), call(y, axis=1)])`` makes several calls of one
function in one request to the sandbox (a round trip costs more than most calls) and
returns their results in order; a call that failed raises its failure when its result
is read, exactly as the call would have raised it, so a grader reads the results
as it would have made the calls::

    for axis, got in zip(axes, student.softmax.map([call(x, axis=a) for a in axes])):
        check.array(got, ...)

Functions and objects are arguments like any other, both ways::

    student.is_equivariant(student.attention, X, perm)        # the student's function, to the student's
    student.blockwise(Q, K, V, score=reference.scaled_dot)   # a function of the grader's, to the student's
    student.is_equivariant(lambda X: X[::-1], X, perm)        # ... a deliberately wrong one

The student's functions and objects run in the sandbox, as every call of theirs
does; a function of the grader's runs in the grader's process, called back with
plain data only (see :mod:`gradekit.sandbox.client`). What the grader gets wrong
-- an argument that cannot cross, a function of its own that calls the student's
code -- is a :class:`~gradekit.errors.BoundaryError`, a bug of the grader's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

from gradekit.errors import (
    BoundaryError,
    SandboxCrashed,
    SandboxTimeout,
    StudentCodeError,
    StudentFailure,
)
from gradekit.graders import recent
from gradekit.graders.budget import GiveUp
from gradekit.graders.failures import _student_failure, _timed_out
from gradekit.i18n.text import _
from gradekit.sandbox.client import Callback, NotRun, RemoteObject, Sandbox, StaleMethod, StudentName
from gradekit.sandbox.crossing import unwrap

__all__ = ["Student", "StudentFunction", "StudentObject", "Results", "Call", "call", "GiveUp"]


class Student:
    """The ``student`` fixture: the student's notebook, run in their sandbox, as a grader sees it.

    Its attributes are the student's functions and classes (:class:`StudentFunction`); indexing
    reads a variable; ``in`` asks whether a name is defined::

        def test_softmax_rows(student, reference, rng):
            x = rng.normal(size=(3, 4))
            check.array(student.softmax(x), reference.softmax(x), what="softmax(x) of a 3×4 table")

        def test_answer(student):
            check.scalar(student["tq2_factor"], 3.0, what="tq2_factor", rtol=0, atol=0.01)
            assert "KVCache" in student, "define the class KVCache"

    Every call runs in the sandbox, and returns plain data (arrays, numbers, strings, lists,
    tuples, dicts) or the student's objects (:class:`StudentObject`). A failure of the student's
    code (an exception, a timeout, a crash) raises :class:`~gradekit.errors.StudentFailure`,
    whose message is the student's feedback: the check fails, the other checks go on.
    """

    def __init__(self, sandbox: Sandbox, reference: Any, helpers: tuple[str, ...] = (), give_up: GiveUp | None = None):
        self._sandbox, self._reference, self._helpers = sandbox, reference, helpers
        self._give_up = give_up or GiveUp()
        self._helper_functions: Mapping[str, Callable] | None = None

    @property
    def _helpers_map(self) -> Mapping[str, Callable]:
        """The reference's functions that stand in for the student's (``with_reference``), by name."""
        if self._helper_functions is None:
            self._helper_functions = {h: getattr(self._reference, h) for h in self._helpers}
        return self._helper_functions

    def with_reference(self, *names: str) -> Student:
        """The student's namespace with their functions ``names`` replaced by the reference's, for
        the calls made through it: an exercise built on another is then graded on its own, a
        mistake in the helper charged once, where the helper is graded::

            sa = student.with_reference("softmax", "scaled_scores")
            out, weights = sa.attention_layer(X, W_q, W_k, W_v)   # their attention_layer, our softmax

        The reference's functions run in the grader's process, called back from the student's
        code with plain data (see :mod:`gradekit.sandbox.client`). A name the reference lacks
        is a LookupError, the grader's own mistake.
        """
        for name in names:
            if not callable(getattr(self._reference, name, None)):
                raise LookupError(f"the reference has no {name!r}")
        return Student(self._sandbox, self._reference, tuple(names), self._give_up)

    def __getitem__(self, name: str) -> Any:
        """A variable the student set, e.g. ``student["tq2_factor"]``; None when unset (a check's
        "no answer given")."""
        if self._guard(lambda: self._sandbox.has(name), name) == "missing":
            return None
        return self._guard(lambda: self._sandbox.get(name), name)

    def __contains__(self, name: str) -> bool:
        """Whether the student's notebook defines ``name`` (``"KVCache" in student``)."""
        return self._guard(lambda: self._sandbox.has(name), name) != "missing"

    def __getattr__(self, name: str) -> StudentFunction:
        if name.startswith("_"):
            raise AttributeError(name)
        return StudentFunction(self, name)

    def _call(self, key: str, target, args: tuple, kwargs: dict, attr: str | None = None, method: bool = False) -> Any:
        helpers = self._helpers_map
        self._give_up.calls += 1
        given = (args, kwargs)
        args, kwargs = _unwrap(args), _unwrap(kwargs)
        result = self._guard(
            lambda: self._sandbox.call(target, args, kwargs, attr=attr, reference=helpers, method=method), key
        )
        if target == key:  # a function of theirs, by name: noted for a check that names no call
            recent.note(StudentFunction(self, key), self._reference, key, *given, result)
        return result

    def _map(self, name: str, calls: list[Call]) -> Results:
        """Make every call of ``student.<name>.map(calls)`` now; their failures wait in the results."""
        for item in calls:
            if not isinstance(item, Call):
                raise TypeError(f"student.{name}.map takes call(...) items, not {type(item).__name__}")
        plain = [(_unwrap(c.args), _unwrap(c.kwargs)) for c in calls]
        outcomes = self._outcomes(name, plain)
        function = StudentFunction(self, name)
        for item, (ok, value) in zip(calls, outcomes, strict=True):
            if ok:  # noted for a check that names no call
                recent.note(function, self._reference, name, item.args, item.kwargs, value)
        return Results(self, name, plain, outcomes)

    def _outcomes(self, name: str, calls: list[tuple[tuple, dict]]) -> list[tuple[bool, Any]]:
        """(True, value) or (False, error) of each call, as :meth:`Sandbox.map` gives them, with
        this notebook's give-ups and budget as :meth:`_guarded` applies them."""
        helpers = self._helpers_map
        give_up = self._give_up
        give_up.calls += len(calls)
        if name in give_up.reasons:
            return [(False, NotRun("timeout"))] * len(calls)
        if give_up.deadline is not None and time.monotonic() > give_up.deadline:
            return [(False, NotRun("budget"))] * len(calls)
        if any(_holds_objects(c) for c in calls):  # objects are lost with a restarted process: one by one
            return self._one_by_one(name, calls, helpers)
        return self._sandbox.map(name, calls, reference=helpers, stop_at=give_up.deadline)

    def _one_by_one(self, name: str, calls: list[tuple[tuple, dict]], helpers) -> list[tuple[bool, Any]]:
        """What :meth:`Sandbox.map` does, a call at a time (for arguments that hold the student's objects)."""
        outcomes: list[tuple[bool, Any]] = []
        deadline, stop = self._give_up.deadline, None
        for args, kwargs in calls:
            if stop is None and deadline is not None and time.monotonic() > deadline:
                stop = (False, NotRun("budget"))
            if stop is not None:
                outcomes.append(stop)
                continue
            try:
                outcomes.append((True, self._sandbox.call(name, args, kwargs, reference=helpers)))
            except (StudentCodeError, BoundaryError) as exc:
                outcomes.append((False, exc))
                if isinstance(exc, SandboxTimeout):
                    stop = (False, NotRun("timeout", exc))
                elif isinstance(exc, SandboxCrashed):
                    stop = (False, NotRun("later"))
        return outcomes

    def _failure(self, name: str, error: Exception) -> Exception:
        """What a call that ended in ``error`` raises in the grader (as :meth:`_guarded` raises it)."""
        reasons = self._give_up.reasons
        if isinstance(error, NotRun):
            if error.why == "budget":
                return StudentFailure(
                    _("not run: this notebook used up its grading time ({seconds:g} s) on earlier checks").format(
                        seconds=self._give_up.budget
                    )
                )
            if error.cause is not None:  # else it was given up on before the map (its reason is known)
                reasons.setdefault(name, _timed_out(name, error.cause))
            return StudentFailure(_("not run: {reason}").format(reason=reasons[name]))
        if isinstance(error, SandboxTimeout):
            reasons.setdefault(name, _timed_out(name, error))
            return StudentFailure(_("`{name}` did not finish: {reason}").format(name=name, reason=error.message))
        if isinstance(error, StudentCodeError):
            return _student_failure(name, error)
        return error  # arguments that cannot cross: the grader's own mistake, raised as it is

    def _guard(self, action: Callable[[], Any], name: str) -> Any:
        return self._wrap(self._guarded(action, name))

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, RemoteObject):
            return StudentObject(self, value)
        if type(value) in (list, tuple):
            return type(value)(self._wrap(v) for v in value)
        return value

    def _guarded(self, action: Callable[[], Any], name: str) -> Any:
        if name in self._give_up.reasons:
            raise StudentFailure(_("not run: {reason}").format(reason=self._give_up.reasons[name]))
        if self._give_up.deadline is not None and time.monotonic() > self._give_up.deadline:
            raise StudentFailure(
                _("not run: this notebook used up its grading time ({seconds:g} s) on earlier checks").format(
                    seconds=self._give_up.budget
                )
            )
        try:
            return action()
        except SandboxTimeout as exc:
            self._give_up.reasons[name] = _timed_out(name, exc)
            raise StudentFailure(_("`{name}` did not finish: {reason}").format(name=name, reason=exc.message)) from None
        except StudentCodeError as exc:
            raise _student_failure(name, exc) from None


class Call:
    """The arguments of one call in :meth:`StudentFunction.map`, made with :func:`call` (not
    :class:`gradekit.graders.check.Call`, which describes a checked call for the relation search).

    Example::

        item = call(x, axis=0)      # item.args == (x,), item.kwargs == {"axis": 0}
    """

    __slots__ = ("args", "kwargs")

    def __init__(self, args: tuple, kwargs: dict):
        self.args, self.kwargs = args, kwargs

    def __repr__(self) -> str:
        return f"call(*{self.args!r}, **{self.kwargs!r})"


def call(*args: Any, **kwargs: Any) -> Call:
    """``call(x, axis=0)``: the arguments of one call of ``student.f.map([...])``, written as the call.

    Example::

        from gradekit.graders.student import call

        results = student.softmax.map([call(x, axis=0), call(x, axis=1)])
    """
    return Call(args, kwargs)


class StudentFunction:
    """``student.softmax``: the student's function. Call it (``student.softmax(x, axis=0)``), make
    many calls of it at once with :meth:`map`, or pass it to another of the student's functions,
    or to the reference's::

        got = student.softmax(x, axis=0)
        assert student.is_equivariant(student.attention, X, perm) is True   # runs in the sandbox
        check.array(student.blockwise(Q, K, V, score=reference.scaled_dot), expected, what=...)

    Passed as an argument it crosses by its name and runs in the sandbox; a function of the
    grader's passed to it (``score=`` above: a reference function, or a deliberately wrong one)
    runs in the grader's process, called back with plain data. Arguments that cannot cross (a
    set, a file, a generator) raise :class:`~gradekit.errors.BoundaryError`: a grader bug, never
    the student's failure.
    """

    __slots__ = ("_student", "__name__")

    def __init__(self, student: Student, name: str):
        self._student, self.__name__ = student, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._student._call(self.__name__, self.__name__, args, kwargs)

    @property
    def give_up(self) -> GiveUp:
        """The notebook's give-ups and budget (the relation search counts its calls in it; a grader
        has no need of it)."""
        return self._student._give_up

    def map(self, calls: Iterable[Call]) -> Results:
        """The results of the calls ``calls`` (each ``call(...)``), in order, made in one request.

        Every call is made, whatever the others return, as a loop of single calls
        that reads no result until the end would make them -- each within its own
        deadline and the notebook's budget: after a call that timed out none is made
        again, and a crash costs only the call that crashed. A call that failed
        raises its failure (the :class:`~gradekit.errors.StudentFailure` the call
        itself would have raised) when its result is read, not before; so a grader
        that reads the results in order and stops at the first wrong one gives the
        feedback the loop of calls gives. Arguments that hold the student's objects are called one by
        one (the objects live in one process); their functions and the grader's cross as in a call::

            axes = [0, 1, -1]
            for axis, got in zip(axes, student.softmax.map([call(x, axis=a) for a in axes])):
                check.array(got, reference.softmax(x, axis=axis), what=f"softmax(x, axis={axis})")
        """
        return self._student._map(self.__name__, list(calls))

    def __repr__(self) -> str:
        return f"<the student's {self.__name__}>"


class Results(Sequence):
    """The results of :meth:`StudentFunction.map`, in the order of its calls. Reading the result
    of a call that failed raises what that call would have raised::

        results = student.f.map([call(1), call(2)])
        first = results[0]          # raises StudentFailure here if f(1) failed
        rest = list(results[1:])
    """

    def __init__(self, student: Student, name: str, calls: list[tuple[tuple, dict]], outcomes: list[tuple[bool, Any]]):
        self._student, self._name, self._calls, self._outcomes = student, name, calls, outcomes

    def __len__(self) -> int:
        return len(self._outcomes)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> Results: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Results(self._student, self._name, self._calls[index], self._outcomes[index])
        ok, value = self._outcomes[index]
        if not ok and isinstance(value, NotRun) and value.why == "later":
            self._make_later(index % len(self._outcomes))
            ok, value = self._outcomes[index]
        if ok:
            return self._student._wrap(value)
        raise self._student._failure(self._name, value)

    def _make_later(self, index: int) -> None:
        """Make the calls left for later (after a crash) from ``index`` on, now that one is read."""
        later = [
            i
            for i in range(index, len(self._outcomes))
            if isinstance(self._outcomes[i][1], NotRun) and self._outcomes[i][1].why == "later"
        ]
        for i, outcome in zip(later, self._student._outcomes(self._name, [self._calls[i] for i in later]), strict=True):
            self._outcomes[i] = outcome

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self._outcomes)):
            yield self[index]

    def __repr__(self) -> str:
        return f"<{len(self)} results of the student's {self._name}>"


class StudentObject:
    """An object of the student's (e.g. their KVCache), with its calls guarded like functions::

        cache = student.KVCache()
        cache.append(k, v)
        assert len(cache) == 1, _("one append: the cache holds one token")
        check.array(cache.keys, k[None, :], what="cache.keys after one append")
        scale = student.make_scaler(2)     # a function their code returns: call it, or pass it on
        check.scalar(scale(3.0), 6.0, what="make_scaler(2)(3.0)")

    Attribute reads, method calls, calls and ``len()`` go through the same checks as
    ``student.f(...)``: errors become feedback, and a method that timed out once is not called
    again (keyed by class and method name). The object lives in the sandbox; passed to the
    student's code it is the same object there.
    """

    def __init__(self, student: Student, remote: RemoteObject):
        object.__setattr__(self, "_student", student)
        object.__setattr__(self, "_remote", remote)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        key = f"{self._remote._handle.type}.{name}"
        student, remote = self._student, self._remote
        if name in remote._methods and remote._sandbox.holds(remote):
            # a plain method, seen before on this object: called without looking it up again
            return self._method(key, name, known=True)
        value = student._guarded(lambda: remote._sandbox.getattr(remote, name), key)
        if isinstance(value, RemoteObject):  # a method: calling it is a guarded call
            return self._method(key, name)
        return student._wrap(value)

    def _method(self, key: str, name: str, known: bool = False) -> Callable[..., Any]:
        student, remote = self._student, self._remote

        def method(*args, **kwargs):
            if known:
                try:
                    return student._call(key, remote, args, kwargs, attr=name, method=True)
                except StaleMethod:  # no longer a plain method: look it up, then call what it is, as Python would
                    remote._methods.discard(name)
                    return getattr(self, name)(*args, **kwargs)
            return student._call(key, remote, args, kwargs, attr=name)

        method.__name__ = name
        return method

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the object: a function of the student's that their code returned (a closure)."""
        return self._student._call(self._remote._handle.type, self._remote, args, kwargs)

    def __len__(self) -> int:
        remote = self._remote
        return self._student._guarded(lambda: len(remote), f"len({remote._handle.type})")

    def __repr__(self) -> str:
        return repr(self._remote)


def _holds_objects(value: Any) -> bool:
    if isinstance(value, RemoteObject):
        return True
    if type(value) in (list, tuple):
        return any(_holds_objects(v) for v in value)
    if type(value) is dict:
        return any(_holds_objects(v) for v in value.values())
    return False


def _unwrap(value: Any) -> Any:
    """``value`` with the student's objects and functions in it (in lists, tuples and dicts) as
    what crosses for them -- their remote handles, their names -- and the grader's functions as
    :class:`~gradekit.sandbox.crossing.Callback`: they stay here, called back."""
    return unwrap(value, _crossing)


def _crossing(value: Any) -> Any:
    """What crosses for one value of a grader's arguments that is not plain data (see :func:`_unwrap`)."""
    if isinstance(value, StudentObject):
        return value._remote
    if isinstance(value, StudentFunction):
        return StudentName(value.__name__)
    if callable(value) and not isinstance(value, (RemoteObject, Callback, StudentName)):
        return Callback(value)
    return value
