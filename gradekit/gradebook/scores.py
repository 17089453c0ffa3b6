"""Where a student's counting score changes: the one call every write that can change it makes.

A student's counting score is what the gradebook holds of the submission that counts: written when
a result is recorded (``gradekit serve``'s attempt that counts, ``autograde``, a regrade, nbgrader's
late penalty with it: :class:`gradekit.gradebook.write.Recorder`), and when a person grades it (a
manual grade, a rubric item: :class:`gradekit.manual.marks.GradebookWriter`). Each of those writes
calls :func:`changed` once it is committed, with the students whose score it may have changed.

:func:`changed` tells whoever waits for one -- the LTI sender (gradekit.lti.loop), through the
course's change notice (gradekit.changes: a datagram, never a wait; a listener that is not there
scans for the change anyway). What of a score may be shown before the due date is the assignment's
policy's to say (gradekit.service.policy: ``Policy.score_shown``, ``Policy.settled``), not the
writer's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradekit import changes

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


def changed(course: Course, assignment: str, students, why: str) -> ScoreChange | None:
    """The counting score of ``students`` may have changed: its listeners hear it (the change, or None
    when there was none to tell)."""
    students = tuple(students)
    if not students:
        return None
    changes.poke(course)
    return ScoreChange(assignment, students, why)
