"""``gradekit feedback ASSIGNMENT``: write feedback/<student>/<assignment>/*.html."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser("feedback", help="write feedback/<student>/<assignment>/<notebook>.html")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[])
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.gradebook.marks import marked_results
    from gradekit.pages.feedback import write_class_feedback

    course = course_of(args)
    count = write_class_feedback(course, args.assignment, marked_results(course, args.assignment, args.student))
    print(f"wrote {count} feedback page(s) in {course.root / 'feedback'}")
    return 0
