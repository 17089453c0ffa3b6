"""``gradekit hub-config``: print (or ``--write``) the config of this course's hub, in the shape it takes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gradekit.cli.common import course_of

DEPLOY = Path("/opt/gradekit")  # make deploy's default
FOLDER = Path("/srv/jupyterhub")


def add_parser(sub) -> None:
    from gradekit.hub.config.logins import LOGINS
    from gradekit.hub.config.shapes import SHAPES

    p = sub.add_parser(
        "hub-config",
        help="the config of this course's hub, in the shape it takes: logins, instructors, servers kept apart, "
        "gradekit's services (print it, or --write it with the servers' settings folders)",
    )
    p.add_argument("assignment", nargs="*", help="the assignments the services serve (default: the course's)")
    p.add_argument(
        "--shape",
        choices=list(SHAPES),
        help="where the students' servers run: "
        + "; ".join(f"{name}: {shape.help}" for name, shape in SHAPES.items())
        + " (default: accounts, or one-account for a course on the hub exchange)",
    )
    p.add_argument(
        "--login",
        choices=list(LOGINS),
        help="who logs in, and how: "
        + "; ".join(f"{name}: {login.help}" for name, login in LOGINS.items())
        + " (default: the shape's own)",
    )
    p.add_argument("--lti", action="store_true", help="the same as --login lti (docs/admin/lti.md)")
    p.add_argument(
        "--instructors",
        metavar="NAME,...",
        help="the instructors' accounts (default: the members of c.Gradekit.staff_group)",
    )
    p.add_argument("--dir", default=str(FOLDER), help=f"the hub's own folder (default: {FOLDER})")
    p.add_argument(
        "--write",
        action="store_true",
        help="write the config, students/, instructors/, interfaces.csv and state/ into --dir (and what the shape "
        "and the login need: the course's token, passwords), then print the config",
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
    for name, default in (
        ("hub-port", 8081),
        ("proxy-api-port", 8001),
        ("grade-port", 8082),
        ("report-port", 8083),
        ("exchange-port", 10101),
        ("lti-port", 8084),
    ):
        p.add_argument(f"--{name}", type=int, default=default, help=f"(default: {default}, on 127.0.0.1)")
    p.add_argument(
        "--no-serve",
        action="store_true",
        help="leave gradekit serve out of the hub's services: it runs elsewhere (systemd), or the course grades "
        "in batches (collect, autograde, release-feedback)",
    )
    for name, kind, what in (
        ("max-mb", float, "MiB a hand-in, unpacked"),
        ("max-files", int, "files a hand-in"),
        ("per-minute", int, "tries to hand in a student a minute"),
        ("at-once", int, "hand-ins of one student arriving at once"),
        ("reads-per-minute", int, "lists, fetches and feedback reads a student a minute"),
    ):
        p.add_argument(
            f"--{name}",
            type=kind,
            metavar="N",
            help=f"the hub exchange's limit: {what} (default: gradekit hub-exchange's)",
        )
    p.add_argument(
        "--account",
        default="jovyan",
        help="one-account: the Unix account every server runs as (default: jovyan; useradd it first)",
    )
    p.add_argument(
        "--homes",
        default="/srv/jupyterhub-homes",
        help="one-account: the folder of each person's home (default: /srv/jupyterhub-homes)",
    )
    p.add_argument(
        "--image",
        default="registry.example.edu/course/student:2026.1",
        help="docker, kubernetes: the students' image (docs/admin/kubernetes-docker.md)",
    )
    p.add_argument(
        "--course-host",
        default="",
        help="docker, kubernetes: the address the hub reaches this machine "
        "at, for the grading page and the class report",
    )
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


def _assignments(course, named: list[str]) -> list[str]:
    """The assignments the services serve: those named, else the course's own (the gradebook's, else those in
    source/ with a notebook): known before anything is released, or any exchange is up."""
    from gradekit.errors import UsageError
    from gradekit.gradebook import read

    found = list(named)
    if not found:
        try:
            found = read.registered_assignments(course)
        except Exception:  # noqa: BLE001 - no gradebook yet: source/ says
            found = []
    if not found:
        source = course.root / "source"
        folders = sorted(source.iterdir()) if source.is_dir() else []
        found = [p.name for p in folders if p.is_dir() and any(p.glob("*.ipynb"))]
    if not found:
        raise UsageError("nothing to serve: the course has no assignment (nbgrader db assignment add ASSIGNMENT)")
    for assignment in found:
        course.source_of(assignment)
    return found


def _lti(course):
    """The course's LTI platform (gradekit lti platform), for the LTI login."""
    from gradekit.lti.platform import load

    return load(course)


def _services_gradekit(course) -> Path:
    """The gradekit the hub's services run, unless --gradekit says: the course's environment (``make
    course-env``'s .venv, which carries no test tools), else the one running this command."""
    own = course.root / ".venv"
    if any(own.glob(".course-deps-*")) and os.access(own / "bin" / "gradekit", os.X_OK):
        return own / "bin" / "gradekit"
    return Path(sys.executable).parent / "gradekit"


def run(args) -> int:
    from gradekit.hub.config.shapes import shape_of

    plan = _plan(args)
    shape = shape_of(plan)
    added = shape.add_course_lines(plan) if args.write else []
    if added:
        plan = _plan(args)  # the course read again, with its new lines
    shape.check(plan)
    if args.write:
        plan.folder.mkdir(parents=True, exist_ok=True)
        (plan.folder / "state").mkdir(mode=0o700, exist_ok=True)
        shape.prepare(plan)
    config = shape.text(plan)
    if args.write:
        for line in [*added, *shape.write(plan, config)]:
            print(f"wrote {line}", file=sys.stderr)
    print(config, end="")
    return 0


def _plan(args):
    from gradekit.hub.config.shapes import Plan

    course = course_of(args)
    login = "lti" if args.lti else (args.login or "")
    on_hub = str(getattr(course.settings, "exchange", "") or "filesystem") == "hub"
    return Plan(
        course=course,
        assignments=_assignments(course, list(args.assignment)),
        instructors=_instructors(course, args.instructors),
        accounts=_accounts(course),
        folder=Path(args.dir).resolve(),
        deploy=Path(args.deploy).resolve(),
        gradekit=Path(args.gradekit).absolute() if args.gradekit else _services_gradekit(course),
        shape=args.shape or ("one-account" if on_hub else "accounts"),
        login=login,
        ip=args.ip,
        port=args.port,
        hub_port=args.hub_port,
        proxy_api_port=args.proxy_api_port,
        grade_port=args.grade_port,
        report_port=args.report_port,
        exchange_port=args.exchange_port,
        lti_port=args.lti_port,
        lti=_lti(course) if login == "lti" else None,
        exchange_args=tuple(
            arg
            for name in ("max_mb", "max_files", "per_minute", "at_once", "reads_per_minute")
            if getattr(args, name) is not None
            for arg in (f"--{name.replace('_', '-')}", f"{getattr(args, name):g}")
        ),
        serve=not args.no_serve,
        public_url=args.public_url,
        ssl_cert=args.ssl_cert,
        ssl_key=args.ssl_key,
        account=args.account,
        homes=Path(args.homes).absolute(),
        image=args.image,
        course_host=args.course_host,
    )
