"""Where submissions are graded: runners behind one small interface.

    Runner         the interface: ``run(students, on_result)``
    InProcess      this process, one submission after another (a handful of submissions)
    LocalPool      worker processes on this machine, each pinned to a core (cores.py)
    DaskCluster    one task per submission on a Dask distributed cluster

Every runner builds a :class:`~gradekit.grading.pipeline.Pipeline` per process, calls
``on_result`` in the coordinating process as each submission finishes (the
coordinator alone writes the gradebook), and raises a
:class:`~gradekit.errors.CourseFailure` as soon as one is seen anywhere -- a
worker reports it instead of a result, and the runner stops.
"""

from __future__ import annotations

import abc
from typing import Callable, Iterable

from gradekit.course import Course
from gradekit.errors import CourseFailure
from gradekit.grading.options import Options
from gradekit.results import SubmissionResult

OnResult = Callable[[SubmissionResult], None]


class Runner(abc.ABC):
    """Grades a list of students of one assignment somewhere."""

    def __init__(self, course: Course, assignment: str, options: Options):
        self.course, self.assignment, self.options = course, assignment, options

    def start(self) -> None:
        """Begin what takes time before the first submission (optional; run() calls it too)."""

    @abc.abstractmethod
    def run(self, students: Iterable[str], on_result: OnResult) -> None:
        """Grade every student; call ``on_result`` for each; raise CourseFailure to stop."""


# -- the wire format between a grading process and the coordinator -----------------------------

def outcome(grade: Callable[[], SubmissionResult]) -> dict:
    """Grade in a worker and say how it went as plain data: a result, or the course failure."""
    try:
        return {"result": grade().to_dict()}
    except CourseFailure as exc:
        return failure_outcome(exc)


def failure_outcome(exc: CourseFailure) -> dict:
    return {"course_failure": {"type": type(exc).__name__, "message": str(exc)}}


def result_of(data: dict) -> SubmissionResult:
    """The result a worker sent, or the CourseFailure it reported, raised here."""
    failure = data.get("course_failure")
    if failure:
        from gradekit import errors

        kind = getattr(errors, str(failure.get("type")), None)
        if not (isinstance(kind, type) and issubclass(kind, CourseFailure)):
            kind = CourseFailure
        raise kind(str(failure.get("message")))
    return SubmissionResult.from_dict(data["result"])


