"""``gradekit export --format canvas|moodle``: the gradebook's totals in the LMS's grade-import CSV."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "export",
        help="write the gradebook's totals (manual grades and late penalties included) as the grade-import "
        "CSV of Canvas or Moodle",
    )
    p.add_argument("--format", required=True, choices=["canvas", "moodle"], dest="lms")
    p.add_argument(
        "--assignment",
        action="append",
        default=[],
        help="an assignment to export (repeat it; default: every assignment in the gradebook)",
    )
    p.add_argument("--roster", help="CSV with id and the LMS's identifiers (default: the gradebook's students)")
    p.add_argument("--out", help="the CSV file to write (default: <format>_grades.csv)")
    p.set_defaults(run=run)


def run(args) -> int:
    from pathlib import Path

    from gradekit.atomic import atomic_write
    from gradekit.manual.export import export_csv

    course = course_of(args)
    text, rows = export_csv(course, args.lms, args.assignment, Path(args.roster) if args.roster else None)
    out = Path(args.out or f"{args.lms}_grades.csv")
    atomic_write(out, text)
    print(f"wrote {out}: {rows} students, {args.lms}'s grade-import layout")
    return 0
