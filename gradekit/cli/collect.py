"""``gradekit collect ASSIGNMENT [SUBMISSIONS.zip]``: the hand-ins from the course's exchange (either one), or an
LMS bulk download, into submitted/."""

from __future__ import annotations

from pathlib import Path

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "collect",
        help="the hand-ins from the course's exchange (nbgrader's folders or the hub exchange), or an LMS bulk "
        "download (Canvas, Moodle zip), into submitted/",
    )
    p.add_argument("assignment")
    p.add_argument(
        "archive",
        metavar="SUBMISSIONS.zip",
        nargs="?",
        help="an LMS bulk download; without it, each student's latest hand-in from the course's exchange",
    )
    p.add_argument(
        "--before-duedate",
        action="store_true",
        help="from the exchange: each student's latest hand-in on time, as nbgrader collect's option",
    )
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
    if not args.archive:
        return _from_exchange(args)
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


def _from_exchange(args) -> int:
    from gradekit.exchange.take_in import collect
    from gradekit.service.policy import due_date

    course = course_of(args)
    due = due_date(course, args.assignment) if args.before_duedate else None
    done = collect(course, args.assignment, due)
    for line in done.lines:
        print(line)
    print(
        f"{args.assignment}: collected {len(done.installed)} submission(s) into submitted/"
        + (f", {len(done.unchanged)} there already" if done.unchanged else "")
    )
    return 0
