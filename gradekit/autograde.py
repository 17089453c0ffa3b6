"""Grading a class: decide what needs grading, run it, record it.

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

from typing import Callable, Iterable, Iterator

from gradekit.course import Course
from gradekit.errors import SandboxUnavailable
from gradekit.grading.options import Options
from gradekit.results import RESULTS_FILE, SubmissionResult, load

__all__ = ["Options", "autograde_class", "grade_many", "preflight", "check_sandbox", "iter_results"]


def check_sandbox(options: Options) -> None:
    from gradekit.sandbox.bwrap import bwrap_path

    if options.sandboxed and not bwrap_path():
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap) "
                                 "or pass --no-sandbox to run student code unconfined")


def preflight(course: Course, assignment: str) -> None:
    """Check the course as a grading process would (see :mod:`gradekit.grading.preflight`)."""
    from gradekit.grading.preflight import preflight as check

    check(course, assignment)


def grade_many(course: Course, assignment: str, students: list[str], options: Options,
               on_result: Callable[[SubmissionResult], None],
               on_start: Callable[[int], None] | None = None) -> None:
    """Grade ``students``; call ``on_result`` for each, in this process, as each finishes.

    Students whose submission, graders and variant have not changed since
    their last grading are not graded again: their stored result is reported,
    and no grading process, sandbox or pytest is started for them.
    ``on_start(n)`` is called once, before the first of ``n`` submissions
    that do need grading starts.
    """
    from gradekit.incremental import unchanged
    from gradekit.runners import make_runner
    from gradekit.timeline import mark

    check_sandbox(options)
    if not options.force:
        done = unchanged(course, assignment, students)
        for student in students:
            if student in done:
                done[student].unchanged = True   # for the progress line only; not a stored field
                on_result(done[student])
        students = [s for s in students if s not in done]
        mark("coordinator", "unchanged checked")
    if not students:
        return
    runner = make_runner(course, assignment, options, len(students))
    runner.start()          # a pool's fork server loads the assignment while this process goes on
    mark("coordinator", "runner started")
    if on_start is not None:
        on_start(len(students))
    runner.run(students, on_result)


def autograde_class(course: Course, assignment: str, students: list[str] | None = None,
                    options: Options = Options(), wide: bool = False):
    """``gradekit autograde``: grade ``students`` (default: everyone with a submission), record
    each result in the gradebook, show progress, print the summary and return it.

    Folders in submitted/ that are not students of the gradebook are skipped with one line
    on stderr each. A course failure stops the run: its message says how far it got.
    """
    import sys

    from gradekit import gradebook, terminal
    from gradekit.errors import CourseFailure, StudentError, UsageError
    from gradekit.timeline import mark
    from gradekit.untrusted import submitted_students

    course.source_of(assignment)
    check_sandbox(options)
    gradebook.check_assignment_registered(course, assignment)
    if students:
        gradebook.check_students(course, students)
        for student in students:
            if not course.submitted_dir(student, assignment).is_dir():
                raise StudentError(f"no submission for {student}: "
                                   f"{course.submitted_dir(student, assignment)} does not exist")
    skipped: list[str] = []
    if not students:
        students, skipped = submitted_students(course.root / "submitted", assignment, set(gradebook.students(course)))
        for line in skipped:
            print(line, file=sys.stderr)
    if not students:
        raise UsageError(f"nothing to grade: no submissions in submitted/*/{assignment}/")
    mark("coordinator", "students listed")
    progress = terminal.Progress(len(students))
    summary = terminal.Summary(wide=wide)
    summary.skipped = skipped   # said again under the table: the lines above scroll away
    with course.lock("autograde"), gradebook.Recorder(course, assignment) as recorder:
        def on_result(result: SubmissionResult) -> None:
            mark("coordinator", "result")
            recorder.record(result)
            summary.add(result)
            progress.advance(result)
        try:
            grade_many(course, assignment, students, options, on_result, on_start=lambda n: recorder.warm())
        except CourseFailure as exc:
            raise type(exc)(f"{exc} -- the run stopped; {len(summary.rows)} submission(s) recorded before it, "
                            "none after") from None
        finally:
            progress.close()
    mark("coordinator", "gradebook closed")
    summary.print(f"{assignment}: {len(summary.rows)} submission(s)")
    mark("coordinator", "summary printed")
    return summary


def iter_results(course: Course, assignment: str, students: Iterable[str]) -> Iterator[SubmissionResult]:
    """The stored results of these students (those graded and readable)."""
    for student in students:
        result = load(course.autograded_dir(student, assignment) / RESULTS_FILE)
        if result is not None:
            yield result
