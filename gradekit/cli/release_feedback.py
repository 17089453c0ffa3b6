"""``gradekit release-feedback ASSIGNMENT``: each graded student's pages, back through the course's exchange."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "release-feedback",
        help="write each graded student's feedback pages and give them back through the course's exchange",
    )
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[], help="only these students (repeatable)")
    p.set_defaults(run=run)


def run(args) -> int:
    import sys

    from gradekit.errors import UsageError
    from gradekit.exchange.exchanges import exchange_of
    from gradekit.service.delivery import release_feedback

    course = course_of(args)
    exchange = exchange_of(course)
    try:
        given = release_feedback(course, args.assignment, args.student, exchange)
    finally:
        exchange.close()
    for line in given.skipped:
        print(line, file=sys.stderr)
    if not given.students and not given.skipped:
        raise UsageError(f"no graded submissions of {args.assignment}: run `gradekit autograde` first")
    print(
        f"{args.assignment}: gave {given.pages} feedback page(s) of {len(given.students)} student(s) back "
        f"through the {exchange.label}"
    )
    return 1 if given.skipped and not given.students else 0
