"""``gradekit feedback ASSIGNMENT``: write feedback/<student>/<assignment>/*.html, as the policy shows them now."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "feedback",
        help="write feedback/<student>/<assignment>/<notebook>.html as the assignment's policy shows them now "
        "(before the due date, the whole pages go to feedback-instructor/)",
    )
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[])
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.gradebook.marks import marked_results
    from gradekit.service.delivery import INSTRUCTOR_FEEDBACK, write_class_pages

    course = course_of(args)
    shown, whole = write_class_pages(course, args.assignment, marked_results(course, args.assignment, args.student))
    print(f"wrote {shown} feedback page(s) in {course.root / 'feedback'}")
    if whole:
        print(
            f"{whole} of them hold back what waits for the due date; the whole pages, yours: "
            f"{course.root / INSTRUCTOR_FEEDBACK}"
        )
    return 0
