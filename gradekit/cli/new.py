"""``gradekit new ASSIGNMENT [--from EXISTING]``: start an assignment that grades at once."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser("new", help="start an assignment that grades at once (or a copy of an existing one)")
    p.add_argument("assignment")
    p.add_argument("--from", dest="template", metavar="EXISTING", help="copy this assignment instead")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.authoring.scaffold import new_assignment

    course = course_of(args)
    paths = new_assignment(course, args.assignment, args.template)
    for path in paths:
        print(path.relative_to(course.root))
    origin = f"a copy of {args.template}" if args.template else "one example exercise and one question"
    print(
        f"{args.assignment}: {len(paths)} file(s), {origin}. Edit them, checking as you go with "
        f"`gradekit check {args.assignment}`; then `gradekit generate {args.assignment}` hands them out"
    )
    return 0
