"""``gradekit doctor``: check the course's deployment: one line per problem, with the command that fixes it."""

from __future__ import annotations

from pathlib import Path

from gradekit.cli.common import course_of

STUDENT_PYTHON = Path("/opt/gradekit/venv/bin/python")  # where `make deploy` installs the students' side


def add_parser(sub) -> None:
    p = sub.add_parser(
        "doctor",
        help="check the deployment: is the course private, the exchange sound, gradekit importable by students?",
    )
    p.add_argument(
        "--student-python",
        metavar="PATH",
        help="the Python the students' nbgrader runs (default: the one the --hub-config's spawner runs, else "
        f"{STUDENT_PYTHON} when it exists)",
    )
    p.add_argument(
        "--hub-config",
        metavar="PATH",
        help="the hub's jupyterhub_config.py: its database and cookie secret, its servers' umask, TLS",
    )
    p.add_argument(
        "--student-account",
        metavar="NAME",
        help="on the hub exchange: the Unix account every student's server runs as (jovyan); doctor checks, as "
        "that account, that it reads neither the exchange's store nor the course",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.doctor.diagnose import diagnose
    from gradekit.doctor.hub import students_python

    course = course_of(args)
    hub = Path(args.hub_config).resolve() if args.hub_config else None
    if hub is not None and not hub.is_file():
        from gradekit.errors import UsageError

        raise UsageError(f"--hub-config {args.hub_config}: no such file")
    python = Path(args.student_python) if args.student_python else (students_python(hub) if hub else None)
    if python is None and not args.student_python and STUDENT_PYTHON.exists():
        python = STUDENT_PYTHON
    problems = diagnose(course, python, hub, args.student_account)
    for problem in problems:
        print(problem.line())
    if not problems:
        on_hub = str(getattr(course.settings, "exchange", "")) == "hub"
        exchange = "the hub exchange" + (f", the account {args.student_account}" if args.student_account else "")
        checked = f"the course, {exchange}" if on_hub else "the course, the exchange, the homes"
        checked += f", {python}" if python else ""
        checked += f" and the hub in {hub.parent}" if hub else ""
        print(f"{course.course_id}: nothing to fix ({checked} checked)")
    return 1 if problems else 0
