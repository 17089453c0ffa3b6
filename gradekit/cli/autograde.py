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
    """``gradekit autograde``: grade ``students`` (default: everyone with a submission) in one
    grading session (gradekit.service.session), showing progress; print the summary and return it.

    Folders in submitted/ that are not students of the gradebook are skipped with one line
    on stderr each. A course failure stops the run: its message says how far it got.
    """
    import sys
    from collections import Counter

    from gradekit.exchange.ledger import handin_reports
    from gradekit.grading.options import Options
    from gradekit.pages import terminal
    from gradekit.results import SubmissionResult
    from gradekit.service.session import autograde, class_to_grade
    from gradekit.timeline import mark

    options = options or Options()
    students, skipped = class_to_grade(course, assignment, students)
    for line in skipped:
        print(line, file=sys.stderr)
    mark("coordinator", "students listed")
    progress = terminal.Progress(len(students))
    summary = terminal.Summary(wide=wide)
    summary.skipped = skipped  # said again under the table: the lines above scroll away

    regraded: list[str] = []

    def on_result(result: SubmissionResult) -> None:
        summary.add(result)
        progress.advance(result)
        if not result.unchanged:
            regraded.append(result.student)

    warned: Counter[str] = Counter()
    try:
        by_service = autograde(course, assignment, students, options, on_result, warned)
    finally:
        progress.close()
    if by_service:
        print(f"{assignment}: graded by the running service (gradekit serve), on its warm graders")
    summary.print(f"{assignment}: {len(summary.rows)} submission(s)")
    for line, count in warned.items():  # once each, where the course's code raised it
        print(f"gradekit: a grader warned, on {count} grading(s): {line}", file=sys.stderr)
    for line in handin_reports(course, assignment):
        print(line)
    if not by_service and regraded:  # the service gives its regrades' pages back itself
        from gradekit.errors import GradekitError
        from gradekit.exchange.exchanges import exchange_of
        from gradekit.service.delivery import after_regrade

        try:
            exchange = exchange_of(course)
        except GradekitError as exc:
            print(f"feedback not given again after the regrade: {exc}")
        else:
            try:
                for line in after_regrade(course, assignment, regraded, exchange):
                    print(line)
            finally:
                exchange.close()
    mark("coordinator", "summary printed")
    return summary


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
