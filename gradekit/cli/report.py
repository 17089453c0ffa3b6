"""``gradekit report ASSIGNMENT``: the class report (index.html, report.json, report.csv)."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="the class report: reports/<assignment>/index.html, report.json, report.csv")
    p.add_argument("assignment")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.pages.report.build import write_report

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
