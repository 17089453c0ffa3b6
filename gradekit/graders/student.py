"""The ``student`` fixture: the student's namespace, seen through the sandbox.

``student.standardize(x, axis=0)`` runs the student's function in the sandbox and
returns plain arrays and numbers; ``student["answer"]`` reads a variable. ``student.with_reference("standardize", ...)``
runs calls with those names of the student's namespace replaced by the
reference implementations (answered by the trusted side over the protocol),
so that a bug in one exercise is not charged again on the exercises built on
it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from gradekit.errors import CodeFailure, SandboxTimeout, StudentCodeError, StudentFailure
from gradekit.i18n.text import Text, _
from gradekit.sandbox.client import RemoteObject, Sandbox


class GiveUp:
    """After a function timed out once, further calls to it fail at once.

    This bounds the time a hanging submission costs (one timeout per function,
    not one per hidden test) without touching the other exercises. It also
    counts, per graded cell (``cell``, the one being graded) and function, the
    failed checks whose relation search called the functions again
    (``searched``: see gradekit.graders.relations), which bounds what a wrong
    submission costs.
    """

    def __init__(self, budget: float | None = None) -> None:
        self.reasons: dict[str, str] = {}
        self.searched: dict[str, int] = {}
        self.cell = ""
        self.deadline = time.monotonic() + budget if budget else None
        self.budget = budget


class Student:
    def __init__(self, sandbox: Sandbox, reference: Any, helpers: tuple[str, ...] = (), give_up: GiveUp | None = None):
        self._sandbox, self._reference, self._helpers = sandbox, reference, helpers
        self._give_up = give_up or GiveUp()

    def with_reference(self, *names: str) -> Student:
        for name in names:
            if not callable(getattr(self._reference, name, None)):
                raise LookupError(f"the reference has no {name!r}")
        return Student(self._sandbox, self._reference, tuple(names), self._give_up)

    def __getitem__(self, name: str) -> Any:
        """A variable the student set, e.g. ``student["tq2_factor"]``; None when unset."""
        if self._guard(lambda: self._sandbox.has(name), name) == "missing":
            return None
        return self._guard(lambda: self._sandbox.get(name), name)

    def __contains__(self, name: str) -> bool:
        return self._guard(lambda: self._sandbox.has(name), name) != "missing"

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            return self._call(name, name, args, kwargs)

        call.__name__ = name
        call.give_up = self._give_up  # type: ignore[attr-defined]  # the relation search's budget
        return call

    def _call(self, key: str, target, args: tuple, kwargs: dict, attr: str | None = None) -> Any:
        helpers: Mapping[str, Callable] = {h: getattr(self._reference, h) for h in self._helpers}
        args, kwargs = _unwrap(args), _unwrap(kwargs)
        return self._guard(lambda: self._sandbox.call(target, args, kwargs, attr=attr, reference=helpers), key)

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
            self._give_up.reasons[name] = _("`{name}` timed out on an earlier check ({reason})").format(
                name=name, reason=exc.message
            )
            raise StudentFailure(_("`{name}` did not finish: {reason}").format(name=name, reason=exc.message)) from None
        except StudentCodeError as exc:
            raise StudentFailure(describe(name, exc)) from None


def describe(name: str, exc: StudentCodeError) -> Text:
    if exc.failure is CodeFailure.RAISED and exc.exc_type == "NameError" and f"'{name}'" in exc.message:
        return _("`{name}` is not defined in your notebook").format(name=name)
    if exc.failure is CodeFailure.RAISED and exc.exc_type == "NotImplementedError":
        return _("`{name}` is not implemented yet (NotImplementedError)").format(name=name)
    where = f" ({exc.where[-1]})" if exc.where else ""
    return _("calling `{name}` raised {kind}: {message}{where}").format(
        name=name, kind=exc.kind, message=exc.message, where=where
    )


class StudentObject:
    """An object of the student's (e.g. their KVCache), with its calls guarded like functions.

    Attribute reads, method calls and ``len()`` go through the same checks as
    ``student.f(...)``: errors become feedback, and a method that timed out
    once is not called again (keyed by class and method name).
    """

    def __init__(self, student: Student, remote: RemoteObject):
        object.__setattr__(self, "_student", student)
        object.__setattr__(self, "_remote", remote)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        key = f"{self._remote._handle.type}.{name}"
        student, remote = self._student, self._remote
        value = student._guarded(lambda: remote._sandbox.getattr(remote, name), key)
        if isinstance(value, RemoteObject):  # a method: calling it is a guarded call

            def method(*args, **kwargs):
                return student._call(key, remote, args, kwargs, attr=name)

            method.__name__ = name
            return method
        return student._wrap(value)

    def __len__(self) -> int:
        remote = self._remote
        return self._student._guarded(lambda: len(remote), f"len({remote._handle.type})")

    def __repr__(self) -> str:
        return repr(self._remote)


def _unwrap(value: Any) -> Any:
    if isinstance(value, StudentObject):
        return value._remote
    if type(value) in (list, tuple):
        return type(value)(_unwrap(v) for v in value)
    if type(value) is dict:
        return {k: _unwrap(v) for k, v in value.items()}
    return value
