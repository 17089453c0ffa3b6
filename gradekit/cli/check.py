"""``gradekit check ASSIGNMENT``: grade a simulated class and check the assignment's graders (QA)."""

from __future__ import annotations

from gradekit.cli.common import course_of
from gradekit.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="grade a simulated class and check the assignment's graders (QA)")
    p.add_argument("assignment")
    p.add_argument("--students", type=int, default=20, help="simulated students (default: 20)")
    p.add_argument("--jobs", type=int, default=0, help="parallel graders (default: one per core)")
    p.add_argument("--no-sandbox", action="store_true", help="run the QA set's code without bubblewrap")
    p.add_argument(
        "--json",
        action="store_true",
        help='print the report as JSON (one object: its rows, their status; {"ok": false, "error": ...} when the '
        "check cannot run)",
    )
    p.add_argument(
        "--keep",
        metavar="DIR",
        help="keep the simulated class in DIR (a new or empty folder): each submission, its graded "
        "notebooks and its feedback pages, and DIR/index.html to read them from",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    if not args.json:
        return _check(args)
    from gradekit.errors import GradekitError

    try:
        return _check(args)
    except GradekitError as exc:  # stdout is still one JSON object; the line on stderr and the exit status stay
        import json

        print(json.dumps({"assignment": args.assignment, "ok": False, "error": str(exc), "exit": exc.exit_code}))
        raise


def _check(args) -> int:
    from gradekit.qa.rows import print_report
    from gradekit.qa.run import run_qa

    course = course_of(args)
    course.source_of(args.assignment)
    if args.students < 1 or args.jobs < 0:
        raise UsageError("--students must be at least 1 and --jobs at least 0")
    keep = None
    if args.keep:
        from pathlib import Path

        from gradekit.qa.keep import require_empty

        keep = Path(args.keep).resolve()
        require_empty(keep)
    if not args.no_sandbox:
        from gradekit.grading.options import Options
        from gradekit.runners.batch import require_sandbox

        require_sandbox(Options())
    report = run_qa(
        course, args.assignment, students=args.students, jobs=args.jobs, sandboxed=not args.no_sandbox, keep=keep
    )
    if args.json:
        import json

        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
    else:
        print_report(report)
    return 0 if report.ok else 1
