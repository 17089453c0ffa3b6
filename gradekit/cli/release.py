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
            f"{args.assignment}: one notebook and one zip per student for {len(students)} student(s) "
            f"in {args.zip} (index.csv lists them)"
        )
        return 0
    from gradekit.handout.steps import publish

    done = {}
    for student in students if args.student else [None]:
        done.update(publish(course, args.assignment, force=args.force, student=student).protection)
    kinds = {k: sum(1 for v in done.values() if v == k) for k in sorted(set(done.values()))}
    print(
        f"{args.assignment}: released {len(done)} personal variant(s) to the nbgrader exchange "
        f"({', '.join(f'{n} {k}' for k, n in kinds.items())})"
    )
    return 0
