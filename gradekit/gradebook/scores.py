"""Where a student's counting score changes: the one place every write that can change it reports to.

A student's counting score is what the gradebook holds of the submission that counts: written when
a result is recorded (``gradekit serve``'s attempt that counts, ``autograde``, a regrade, nbgrader's
late penalty with it: :class:`gradekit.gradebook.write.Recorder`), and when a person grades it (a
manual grade, a rubric item: :class:`gradekit.manual.marks.GradebookWriter`). Each of those writes
calls :func:`changed` once it is committed, with the students whose score it may have changed.

What listens is the course's: ``c.Gradekit.score_listeners``, the import paths of functions
``listener(course, change: ScoreChange)`` (an LMS's grade sync, say), called in order in the writing
process. A listener sees only that a score may have changed; what of it may be shown is the
assignment's policy's to say (gradekit.service.policy: ``Policy.score_shown``, ``Policy.settled``).
A listener that fails is one line on stderr: the write it follows is never undone.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course

GRADED = "graded"  # a result recorded: a hand-in graded, a regrade, its late penalty
BY_HAND = "by hand"  # a person's manual grade or rubric item


@dataclass(frozen=True)
class ScoreChange:
    """The counting score of ``students`` in ``assignment`` may have changed, for ``why``."""

    assignment: str
    students: tuple[str, ...]
    why: str  # GRADED, BY_HAND


def listeners(course: Course) -> list:
    """The course's listeners, imported (``c.Gradekit.score_listeners``); a name that does not load is a
    CourseError of one line."""
    import importlib

    from gradekit.errors import CourseError

    found = []
    for name in list(getattr(course.settings, "score_listeners", []) or []):
        module, _sep, attribute = str(name).rpartition(".")
        try:
            found.append(getattr(importlib.import_module(module), attribute))
        except (ImportError, AttributeError, ValueError) as exc:
            raise CourseError(
                f"nbgrader_config.py: c.Gradekit.score_listeners names {name!r}, which does not load "
                f"({type(exc).__name__}: {exc})"
            ) from None
    return found


def changed(course: Course, assignment: str, students, why: str) -> None:
    """Tell the course's listeners that the counting score of ``students`` may have changed."""
    students = tuple(students)
    names = list(getattr(course.settings, "score_listeners", []) or [])
    if not students or not names:
        return
    change = ScoreChange(assignment, students, why)
    for listener in listeners(course):
        try:
            listener(course, change)
        except Exception as exc:  # noqa: BLE001 - a listener never undoes the write it follows
            name = getattr(listener, "__qualname__", repr(listener))
            print(f"gradekit: score listener {name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
