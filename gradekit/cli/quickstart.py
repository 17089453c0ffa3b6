"""``gradekit quickstart DIR``: a new course directory, with one assignment that grades at once."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser(
        "quickstart",
        help="make a new course directory: nbgrader_config.py, one assignment, a small roster, a .gitignore",
    )
    p.add_argument("directory", help="where the course goes (new, or an empty directory)")
    p.add_argument("--assignment", default="week1", help="the first assignment's name (default: week1)")
    p.set_defaults(run=run)


def run(args) -> int:
    from pathlib import Path

    from gradekit.authoring.quickstart import new_course, write_course
    from gradekit.course import Course
    from gradekit.gradebook.roster import import_roster
    from gradekit.untrusted import require_id

    require_id("assignment", args.assignment)
    directory = Path(args.directory)
    with new_course(directory) as root:
        written = write_course(root, args.assignment)
        students = import_roster(Course.load(root), root / "roster.csv")
    for path in written:
        print(path.relative_to(root))
    print(
        f"{directory}: a course with {args.assignment} and {len(students)} students in its gradebook "
        f"(from roster.csv). Next, in it: "
        f"`gradekit check {args.assignment}`, then `gradekit generate {args.assignment}`"
    )
    return 0
