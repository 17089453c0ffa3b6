"""``gradekit answer-key ASSIGNMENT --student ID --out DIR``: one student's notebooks, solved."""

from __future__ import annotations

from pathlib import Path

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser("answer-key", help="one student's notebooks with the solutions filled in")
    p.add_argument("assignment")
    p.add_argument("--student", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.gradebook.read import require_students
    from gradekit.release.generate import write_answer_key

    course = course_of(args)
    require_students(course, [args.student])
    for path in write_answer_key(course, args.assignment, args.student, Path(args.out)):
        print(path)
    return 0
