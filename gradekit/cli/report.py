"""``gradekit report ASSIGNMENT``: the class report (index.html, report.json, report.csv)."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="the class report: reports/<assignment>/index.html, report.json, report.csv")
    p.add_argument(
        "assignment", nargs="*", help="the assignment (with --serve: those to serve; default every released one)"
    )
    p.add_argument(
        "--serve",
        action="store_true",
        help="serve the reports and the feedback pages they link to inside a JupyterHub, for the course's "
        "instructors (a service gradekit hub-config writes)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    if args.serve:
        return _serve(args)
    from gradekit.errors import UsageError
    from gradekit.pages.report.build import write_report

    if len(args.assignment) != 1:
        raise UsageError("name one assignment: gradekit report ASSIGNMENT (or --serve)")
    args.assignment = args.assignment[0]
    course = course_of(args)
    written = write_report(course, args.assignment)
    counts = written.report["class"]
    print(
        f"{args.assignment}: class report of {counts['graded']} graded submission(s) "
        f"({counts['not_gradable']} not gradable, {counts['not_submitted']} not submitted)"
    )
    print(f"  {written.html}")
    print(f"  {written.json.name} and {written.csv.name} beside it")
    if written.missing_feedback:
        print(
            f"  {written.missing_feedback} student(s) have no feedback page yet for the report to link to: "
            f"run `gradekit feedback {args.assignment}`"
        )
    return 0


def _serve(args) -> int:
    from gradekit.errors import GradekitError
    from gradekit.web.serving import hold_broken

    try:
        from gradekit.exchange.exchanges import exchange_of
        from gradekit.hub.report import serve

        course = course_of(args)
        assignments = list(args.assignment) or exchange_of(course).released()
        for assignment in assignments:
            course.source_of(assignment)
        serve(course, assignments, say=lambda line: print(line, flush=True))
    except GradekitError as exc:  # inside a hub: answer with the line for a while, then exit (never the hub's death)
        hold_broken(str(exc), say=lambda line: print(line, flush=True))
        raise
    return 0
