"""The ``student`` fixture: the student's namespace, seen through the sandbox.

``student.softmax(x, axis=0)`` runs the student's function in the sandbox and
returns plain arrays and numbers; ``student["answer"]`` reads a variable. ``student.with_reference("softmax", ...)``
runs calls with those names of the student's namespace replaced by the
reference implementations (answered by the trusted side over the protocol),
so that a bug in one exercise is not charged again on the exercises built on
it.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping

from ..sandbox.client import Sandbox, SandboxTimeout, StudentCodeError


class StudentFailure(AssertionError):
    """The student's code raised, hung or crashed during a grader's call."""


class GiveUp:
    """After a function timed out once, further calls to it fail at once.

    This bounds the time a hanging submission costs (one timeout per function,
    not one per hidden test) without touching the other exercises.
    """

    def __init__(self, budget: float | None = None) -> None:
        self.reasons: dict[str, str] = {}
        self.deadline = time.monotonic() + budget if budget else None
        self.budget = budget


class Student:
    def __init__(self, sandbox: Sandbox, reference: Any, helpers: tuple[str, ...] = (),
                 give_up: GiveUp | None = None):
        self._sandbox, self._reference, self._helpers = sandbox, reference, helpers
        self._give_up = give_up or GiveUp()

    def with_reference(self, *names: str) -> "Student":
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
            helpers: Mapping[str, Callable] = {h: getattr(self._reference, h) for h in self._helpers}
            return self._guard(lambda: self._sandbox.call(name, args, kwargs, reference=helpers), name)

        call.__name__ = name
        return call

    def _guard(self, action: Callable[[], Any], name: str) -> Any:
        if name in self._give_up.reasons:
            raise StudentFailure(f"not run: {self._give_up.reasons[name]}")
        if self._give_up.deadline is not None and time.monotonic() > self._give_up.deadline:
            raise StudentFailure(f"not run: this notebook used up its grading time "
                                 f"({self._give_up.budget:g} s) on earlier checks")
        try:
            return action()
        except SandboxTimeout as exc:
            self._give_up.reasons[name] = f"`{name}` timed out on an earlier check ({exc.message})"
            raise StudentFailure(f"`{name}` did not finish: {exc.message}") from None
        except StudentCodeError as exc:
            raise StudentFailure(describe(name, exc)) from None


def describe(name: str, exc: StudentCodeError) -> str:
    if exc.kind == "NameError" and f"'{name}'" in exc.message:
        return f"`{name}` is not defined in your notebook"
    if exc.kind == "NotImplementedError":
        return f"`{name}` is not implemented yet (NotImplementedError)"
    where = f" ({exc.where[-1]})" if exc.where else ""
    return f"calling `{name}` raised {exc.kind}: {exc.message}{where}"
