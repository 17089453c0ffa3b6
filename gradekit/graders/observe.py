"""What a grading may be watched for besides its result: the seam ``gradekit check`` plugs into.

A grading run reports nothing but its result. A tool that must see inside one
installs observers for one notebook's grading (:func:`observing`: a grading
stage offers one through :meth:`gradekit.grading.stages.Stage.observer`), and
then, for each installed observer that has the method:

    reference_returned(value)             every value the reference's functions return to a grader
    right_answer_matches(mistake, what)   a passing check whose known mistake gives the right
                                          answer there; only observers with ``audits = True`` are
                                          asked, since working a check's mistakes out may call into
                                          the student's code (and spend the submission's budget)

The graders' comparisons (:mod:`gradekit.graders.check`) and the ``reference``
fixture report here; with nobody listening they compute nothing extra. A
leaf: nothing of gradekit is imported.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator
from typing import Any

_OBSERVERS: contextvars.ContextVar[tuple] = contextvars.ContextVar("gradekit_observers", default=())


@contextlib.contextmanager
def observing(observers: Iterable[Any]) -> Iterator[None]:
    """Install ``observers`` for what runs inside the block (one notebook's grading)."""
    token = _OBSERVERS.set(tuple(observers))
    try:
        yield
    finally:
        _OBSERVERS.reset(token)


def auditing() -> bool:
    """Whether some observer wants every passing check's known mistakes worked out."""
    return any(getattr(o, "audits", False) for o in _OBSERVERS.get())


def right_answer_matches(mistake: str, what: str) -> None:
    for observer in _OBSERVERS.get():
        if getattr(observer, "audits", False):
            observer.right_answer_matches(mistake, what)


def recording_references() -> bool:
    """Whether some observer wants the values the reference returns."""
    return any(hasattr(o, "reference_returned") for o in _OBSERVERS.get())


def reference_returned(value: Any) -> None:
    for observer in _OBSERVERS.get():
        if hasattr(observer, "reference_returned"):
            observer.reference_returned(value)
