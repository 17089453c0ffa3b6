"""Where submissions are graded: runners behind one small interface.

    Runner         the interface: ``run(students, on_result)``
    InProcess      this process, one submission after another (a handful of submissions)
    LocalPool      worker processes on this machine, each pinned to a core (cores.py)
    DaskCluster    one task per submission on a Dask distributed cluster

Every runner builds a :class:`~gradekit.grading.Pipeline` per process, calls
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


def make_runner(course: Course, assignment: str, options: Options, count: int) -> Runner:
    """The runner for ``count`` submissions: the cluster when a scheduler is given, else a pool
    sized to the work (one worker per few submissions, at most one per core), else this process."""
    if options.scheduler:
        from gradekit.runners.cluster import DaskCluster

        return DaskCluster(course, assignment, options)
    jobs = options.jobs or workers_for(count)
    if jobs <= 1:
        from gradekit.runners.local import InProcess

        return InProcess(course, assignment, options)
    from gradekit.runners.local import LocalPool

    return LocalPool(course, assignment, options, min(jobs, count))


SUBMISSIONS_PER_WORKER = 4   # below this many per extra worker, starting one costs more than it saves


def workers_for(count: int) -> int:
    import os

    cores = len(_usable_cores()) or os.cpu_count() or 1
    return max(1, min(cores, count // SUBMISSIONS_PER_WORKER))


def _usable_cores() -> set[int]:
    from gradekit.runners.cores import affinity

    return affinity()
