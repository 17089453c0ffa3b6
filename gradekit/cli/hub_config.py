"""``gradekit hub-config``: print (or ``--write``) the jupyterhub_config.py of this course's hub."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gradekit.cli.common import course_of

DEPLOY = Path("/opt/gradekit")  # make deploy's default
FOLDER = Path("/srv/jupyterhub")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "hub-config",
        help="the jupyterhub_config.py of this course's hub: logins, instructors, private servers, gradekit's "
        "services (print it, or --write it with the servers' settings folders)",
    )
    p.add_argument("assignment", nargs="*", help="the assignments the services serve (default: every released one)")
    p.add_argument(
        "--instructors",
        metavar="NAME,...",
        help="the instructors' accounts (default: the members of c.Gradekit.staff_group)",
    )
    p.add_argument("--dir", default=str(FOLDER), help=f"the hub's own folder (default: {FOLDER})")
    p.add_argument(
        "--write",
        action="store_true",
        help="write jupyterhub_config.py, students/, instructors/, "
        "interfaces.csv and state/ into --dir, then print the config",
    )
    p.add_argument("--deploy", default=str(DEPLOY), help=f"make deploy's folder (default: {DEPLOY})")
    p.add_argument(
        "--gradekit",
        help="the gradekit the services run (default: the course's own, .venv/bin/gradekit that make course-env "
        "built, else this one)",
    )
    p.add_argument(
        "--ip",
        default="127.0.0.1",
        help="the address the hub listens on (default: 127.0.0.1, behind "
        "a reverse proxy with TLS; 0.0.0.0 with --ssl-cert/--ssl-key)",
    )
    p.add_argument("--port", type=int, default=8000, help="the hub's port (default: 8000)")
    p.add_argument("--public-url", default="", help="the address people open, e.g. https://hub.example.edu/")
    p.add_argument("--ssl-cert", default="", help="TLS certificate, for a hub with no reverse proxy in front")
    p.add_argument("--ssl-key", default="", help="its key")
    p.add_argument(
        "--lti",
        action="store_true",
        help="log in from the LMS (LTI 1.3, the platform `gradekit lti platform` registered) instead of PAM, "
        "with the course's LTI service (docs/admin/lti.md)",
    )
    for name, default in (
        ("hub-port", 8081),
        ("proxy-api-port", 8001),
        ("grade-port", 8082),
        ("report-port", 8083),
        ("lti-port", 8084),
    ):
        p.add_argument(f"--{name}", type=int, default=default, help=f"(default: {default}, on 127.0.0.1)")
    p.set_defaults(run=run)


def _instructors(course, given: str | None) -> list[str]:
    if given:
        return [n.strip() for n in given.split(",") if n.strip()]
    group = str(getattr(course.settings, "staff_group", "") or "")
    if not group:
        return []
    import grp

    try:
        return sorted(grp.getgrnam(group).gr_mem)
    except KeyError:
        return []


def _accounts(course) -> list[str]:
    """The roster's accounts: the gradebook's students, under the names c.Gradekit.identities gives them."""
    from gradekit.exchange.identity import Identities
    from gradekit.gradebook import read

    identities = Identities.of(course)
    return sorted(identities.account_of(s) or s for s in read.students(course))


def _services_gradekit(course) -> Path:
    """The gradekit the hub's services run, unless --gradekit says: the course's environment (``make
    course-env``'s .venv, which carries no test tools), else the one running this command."""
    own = course.root / ".venv"
    if any(own.glob(".course-deps-*")) and os.access(own / "bin" / "gradekit", os.X_OK):
        return own / "bin" / "gradekit"
    return Path(sys.executable).parent / "gradekit"


def _lti(course):
    """The course's LTI platform (gradekit lti platform), for hub-config --lti."""
    from gradekit.lti.platform import load

    return load(course)


def run(args) -> int:
    from gradekit.errors import UsageError
    from gradekit.exchange.exchanges import exchange_of
    from gradekit.hub.config import Plan, check, text, write

    course = course_of(args)
    assignments = list(args.assignment) or exchange_of(course).released()
    if not assignments:
        raise UsageError("nothing to serve: no assignment released to the exchange yet (gradekit release ASSIGNMENT)")
    for assignment in assignments:
        course.source_of(assignment)
    plan = Plan(
        course=course,
        assignments=assignments,
        instructors=_instructors(course, args.instructors),
        accounts=_accounts(course),
        folder=Path(args.dir).resolve(),
        deploy=Path(args.deploy).resolve(),
        gradekit=Path(args.gradekit).absolute() if args.gradekit else _services_gradekit(course),
        ip=args.ip,
        port=args.port,
        hub_port=args.hub_port,
        proxy_api_port=args.proxy_api_port,
        grade_port=args.grade_port,
        report_port=args.report_port,
        lti_port=args.lti_port,
        public_url=args.public_url,
        ssl_cert=args.ssl_cert,
        ssl_key=args.ssl_key,
        lti=_lti(course) if args.lti else None,
    )
    check(plan)
    config = text(plan)
    if args.write:
        from gradekit.cli.student_config import write_dir

        for path in [*write(plan, config), *write_dir(course, plan.folder / "students")]:
            print(f"# wrote {path}", file=sys.stderr)
    print(config, end="")
    return 0
