"""Grading a class: decide what needs grading, then grade the rest somewhere.

    incremental   results whose submission, graders and variant are unchanged are reused
    runners       the rest is graded in this process, a local pool or a Dask cluster;
                  each grading process checks the course first (grading/preflight.py:
                  the templates render, every grader and the reference compile), so a
                  course bug stops the run before the first submission is graded
    on_result     the coordinator alone records each result (the gradebook, the summary)

One submission's problems are that submission's zero (with the reason). A
:class:`~gradekit.errors.CourseFailure` met anywhere stops the run: nothing
more is recorded, and the command exits non-zero.
"""

from __future__ import annotations

from collections.abc import Callable

from gradekit.course import Course
from gradekit.errors import SandboxUnavailable
from gradekit.grading.options import Options
from gradekit.results import SubmissionResult
from gradekit.runners.base import Job, Runner


def require_sandbox(options: Options) -> None:
    from gradekit.sandbox.bwrap import bwrap_path

    if options.sandboxed and not bwrap_path():
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap) "
            "or pass --no-sandbox to run student code unconfined"
        )


def grade_many(
    course: Course,
    assignment: str,
    students: list[str],
    options: Options,
    on_result: Callable[[SubmissionResult], None],
    on_start: Callable[[int], None] | None = None,
) -> None:
    """Grade ``students``; call ``on_result`` for each, in this process, as each finishes.

    Students whose submission, graders and variant have not changed since
    their last grading are not graded again: their stored result is reported,
    and no grading process, sandbox or pytest is started for them.
    ``on_start(n)`` is called once, before the first of ``n`` submissions
    that do need grading starts.
    """
    from gradekit.intake.incremental import unchanged
    from gradekit.timeline import mark

    require_sandbox(options)
    if not options.force:
        done = unchanged(course, assignment, students)
        for student in students:
            if student in done:
                done[student].unchanged = True  # for the progress line only; not a stored field
                on_result(done[student])
        students = [s for s in students if s not in done]
        mark("coordinator", "unchanged checked")
    if not students:
        return
    with make_runner(course, assignment, options, len(students)) as runner:
        runner.start()  # a pool's fork server loads the assignment while this process goes on
        mark("coordinator", "runner started")
        if on_start is not None:
            on_start(len(students))
        runner.run((Job(student) for student in students), lambda outcome: on_result(outcome.result))


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


SUBMISSIONS_PER_WORKER = 4  # below this many per extra worker, starting one costs more than it saves


def workers_for(count: int) -> int:
    import os

    cores = len(_usable_cores()) or os.cpu_count() or 1
    return max(1, min(cores, count // SUBMISSIONS_PER_WORKER))


def _usable_cores() -> set[int]:
    from gradekit.runners.cores import affinity

    return affinity()
