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
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.qa.rows import print_report
    from gradekit.qa.run import run_qa

    course = course_of(args)
    course.source_of(args.assignment)
    if args.students < 1 or args.jobs < 0:
        raise UsageError("--students must be at least 1 and --jobs at least 0")
    if not args.no_sandbox:
        from gradekit.grading.options import Options
        from gradekit.runners.batch import require_sandbox

        require_sandbox(Options())
    report = run_qa(course, args.assignment, students=args.students, jobs=args.jobs, sandboxed=not args.no_sandbox)
    print_report(report)
    return 0 if report.ok else 1
