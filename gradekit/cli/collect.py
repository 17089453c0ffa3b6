"""``gradekit collect ASSIGNMENT SUBMISSIONS.zip``: an LMS bulk download into submitted/."""

from __future__ import annotations

from pathlib import Path

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser("collect", help="import an LMS bulk download (Canvas, Moodle zip) into submitted/")
    p.add_argument("assignment")
    p.add_argument("archive", metavar="SUBMISSIONS.zip")
    p.add_argument(
        "--roster",
        metavar="CSV",
        help="a CSV with an id column and the --match column (default: the gradebook's students)",
    )
    p.add_argument(
        "--match",
        default="id",
        choices=["id", "email", "lms_user_id"],
        help="the roster column the file names carry (default: id)",
    )
    p.add_argument("--timezone", default="UTC", help="time zone of the zip's file dates (default: UTC)")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.handout.lms import collect_zip

    report = collect_zip(
        course_of(args),
        args.assignment,
        Path(args.archive),
        Path(args.roster) if args.roster else None,
        args.match,
        args.timezone,
    )
    for line in report.lines():
        print(line)
    return 0
