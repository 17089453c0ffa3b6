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
    from gradekit.gradebook.export import export_csv

    course = course_of(args)
    text, rows = export_csv(course, args.lms, args.assignment, Path(args.roster) if args.roster else None)
    out = Path(args.out or f"{args.lms}_grades.csv")
    atomic_write(out, text)
    print(f"wrote {out}: {rows} students, {args.lms}'s grade-import layout")
    for line in _held(course, args.assignment):
        print(line)
    return 0


def _held(course, assignments: list[str]) -> list[str]:
    """A line for each exported assignment that is not due yet and hides part of itself from students."""
    import datetime as dt

    from gradekit.gradebook.read import registered_assignments
    from gradekit.gradebook.sql_read import duedate
    from gradekit.service.policy import Policy

    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    out = []
    for assignment in assignments or registered_assignments(course):
        if assignment not in course.assignments():  # in the gradebook, no longer in source/
            continue
        due = (duedate(course, assignment) or (None,))[0]
        policy = Policy.of(course, assignment)  # the assignment's own settings say what it hides
        parts = policy.held_parts(course, assignment) if due is not None and due > now else []
        if parts:
            held = ", ".join(f"{name} ({points:g} points)" for name, points in parts)
            out.append(
                f"  {assignment}: the totals count {held}, which students do not see until the due date "
                f"({due:%Y-%m-%d %H:%M} UTC): their pages show the rest"
            )
    return out
