"""``gradekit autograde``: grade a class into the gradebook, with progress and a summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - the parser imports every verb: nothing heavier than it needs
    from gradekit.course import Course
    from gradekit.grading.options import Options


def autograde_class(
    course: Course,
    assignment: str,
    students: list[str] | None = None,
    options: Options | None = None,
    wide: bool = False,
):
    """``gradekit autograde``: grade ``students`` (default: everyone with a submission), record
    each result in the gradebook, show progress, print the summary and return it.

    Folders in submitted/ that are not students of the gradebook are skipped with one line
    on stderr each. A course failure stops the run: its message says how far it got.
    """
    import sys

    from gradekit.grading.options import Options
    from gradekit.results import SubmissionResult
    from gradekit.runners.batch import grade_many, require_sandbox

    options = options or Options()
    from gradekit.errors import CourseFailure, StudentError, UsageError
    from gradekit.gradebook import read
    from gradekit.gradebook.write import Recorder
    from gradekit.intake.untrusted import submitted_students
    from gradekit.pages import terminal
    from gradekit.timeline import mark

    course.source_of(assignment)
    require_sandbox(options)
    read.require_registered(course, assignment)
    if students:
        read.require_students(course, students)
        for student in students:
            if not course.submitted_dir(student, assignment).is_dir():
                raise StudentError(
                    f"no submission for {student}: {course.submitted_dir(student, assignment)} does not exist"
                )
    skipped: list[str] = []
    if not students:
        students, skipped = submitted_students(course.root / "submitted", assignment, set(read.students(course)))
        for line in skipped:
            print(line, file=sys.stderr)
    if not students:
        raise UsageError(f"nothing to grade: no submissions in submitted/*/{assignment}/")
    mark("coordinator", "students listed")
    progress = terminal.Progress(len(students))
    summary = terminal.Summary(wide=wide)
    summary.skipped = skipped  # said again under the table: the lines above scroll away
    from gradekit.service import control

    service = control.connect(course)
    if service is not None:  # a `gradekit serve` runs: its warm runner grades, and it records
        try:
            _through(service, assignment, students, options, summary, progress)
        finally:
            progress.close()
        print(f"{assignment}: graded by the running service (gradekit serve), on its warm graders")
        summary.print(f"{assignment}: {len(summary.rows)} submission(s)")
        for line in handin_reports(course, assignment):
            print(line)
        return summary
    with course.lock("autograde"), Recorder(course, assignment) as recorder:

        def on_result(result: SubmissionResult) -> None:
            mark("coordinator", "result")
            recorder.record(result)
            summary.add(result)
            progress.advance(result)

        try:
            grade_many(course, assignment, students, options, on_result, on_start=lambda n: recorder.warm())
        except CourseFailure as exc:
            raise type(exc)(
                f"{exc} -- the run stopped; {len(summary.rows)} submission(s) recorded before it, none after"
            ) from None
        finally:
            progress.close()
    mark("coordinator", "gradebook closed")
    summary.print(f"{assignment}: {len(summary.rows)} submission(s)")
    for line in handin_reports(course, assignment):
        print(line)
    mark("coordinator", "summary printed")
    return summary


def _through(service, assignment: str, students: list[str], options, summary, progress) -> None:
    """Hand the grading to the running service and show what it streams back."""
    from gradekit.errors import CourseFailure, GradekitError
    from gradekit.results import SubmissionResult
    from gradekit.service import control

    with service:
        for answer in control.request(
            service, {"op": "autograde", "assignment": assignment, "students": students, "force": options.force}
        ):
            if "error" in answer:
                kind = CourseFailure if answer.get("exit") == 3 else GradekitError
                raise kind(f"the running service: {answer['error']}")
            if "result" in answer:
                result = SubmissionResult.from_dict(answer["result"])
                result.unchanged = bool(answer.get("unchanged"))
                summary.add(result)
                progress.advance(result)


def handin_reports(course: Course, assignment: str) -> list[str]:
    """What the exchange's ledger says about this assignment's hand-ins (refusals, backdated
    timestamps, changes after handing in), one line each; none when nothing came through it."""
    from gradekit.intake.ledger import LEDGER, Ledger

    if not (course.root / LEDGER).exists():
        return []
    with Ledger(course) as ledger:
        return ledger.reports(assignment)


def add_parser(sub) -> None:
    p = sub.add_parser("autograde", help="grade submitted/<student>/<assignment>/ into the gradebook")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[])
    p.add_argument("--jobs", type=int, default=0, help="parallel graders (default: one per core)")
    p.add_argument("--no-sandbox", action="store_true", help="run student code without bubblewrap (unsafe)")
    p.add_argument("--force", action="store_true", help="regrade submissions that have not changed")
    p.add_argument(
        "--wide",
        action="store_true",
        help="the summary with one column per graded cell (default: one per notebook, to fit 100 columns)",
    )
    p.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="grade on this Dask distributed cluster (workers must see the course directory)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    import sys

    from gradekit.cli.common import course_of
    from gradekit.extras import require

    if args.scheduler:
        require("cluster")
    course = course_of(args)
    course.source_dir(args.assignment)  # a valid id
    if args.no_sandbox:
        print(
            "WARNING: --no-sandbox: student code runs UNCONFINED, with your rights, "
            "able to read and change your files. Use only for code you trust.",
            file=sys.stderr,
        )
    from gradekit.grading.options import Options

    options = Options(sandboxed=not args.no_sandbox, jobs=args.jobs, force=args.force, scheduler=args.scheduler)
    autograde_class(course, args.assignment, args.student, options, wide=args.wide)
    return 0
