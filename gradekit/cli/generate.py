"""``gradekit generate ASSIGNMENT``: write each student's own release notebooks."""

from __future__ import annotations

from gradekit.cli.common import class_of, course_of, warn_untranslated


def add_parser(sub) -> None:
    p = sub.add_parser("generate", help="write each student's own release notebooks")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[], help="only these students (repeatable)")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.release.generate import generate

    course = course_of(args)
    students = class_of(course, args)
    paths = generate(course, args.assignment, students)
    print(
        f"{args.assignment}: released {len(paths)} notebook(s) for {len(students)} student(s) "
        f"in {course.root / 'release'}"
    )
    warn_untranslated(course, args.assignment, students)
    return 0
