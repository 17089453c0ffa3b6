"""``gradekit release ASSIGNMENT``: each student's own variant into nbgrader's exchange, or zips for an LMS."""

from __future__ import annotations

from pathlib import Path

from gradekit.cli.common import class_of, course_of, warn_untranslated


def add_parser(sub) -> None:
    p = sub.add_parser("release", help="each student's own variant into nbgrader's exchange (or --zip DIR)")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[], help="only these students (repeatable)")
    p.add_argument("--force", action="store_true", help="replace what is already in the exchange")
    p.add_argument(
        "--zip", metavar="DIR", help="write DIR/<student>/<notebook>.ipynb and DIR/<assignment>_<student>.zip instead"
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.release.generate import generate

    course = course_of(args)
    students = class_of(course, args)
    generate(course, args.assignment, students)
    warn_untranslated(course, args.assignment, students)
    if args.zip:
        from gradekit.handout.lms import write_release_zips

        write_release_zips(course, args.assignment, students, Path(args.zip))
        print(
            f"{args.assignment}: one notebook and one zip per student for {_count(len(students), 'student')} "
            f"in {args.zip} (index.csv lists them)"
        )
        return 0
    from gradekit.exchange.exchanges import exchange_of

    exchange = exchange_of(course)
    done = {}
    try:
        for student in students if args.student else [None]:
            done.update(exchange.publish(args.assignment, force=args.force, student=student).protection)
    finally:
        exchange.close()
    kinds = {k: sum(1 for v in done.values() if v == k) for k in sorted(set(done.values()))}
    print(
        f"{args.assignment}: released {_count(len(done), 'personal variant')} to the {exchange.label} "
        f"({', '.join(_PROTECTION.get(k, '{n} ' + k).format(n=n) for k, n in kinds.items())})"
    )
    return 0


# how each release is kept from the other accounts (gradekit.exchange.filesystem.release's protect)
_PROTECTION = {
    "student": "{n} readable by their student alone",
    "owner-only": "{n} readable by you alone: no account of that name",
    "public": "{n} readable by every account",
    "unreachable": "{n} that no account can fetch",
    "hub": "{n} fetched by their hub login alone",
}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
