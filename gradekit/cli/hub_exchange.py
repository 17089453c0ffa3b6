"""``gradekit hub-exchange``: the hub exchange, a JupyterHub service the hub starts (gradekit.exchange.hub.server)."""

from __future__ import annotations

DEFAULT_STORE = "/srv/gradekit-exchange"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "hub-exchange",
        help="the exchange as a JupyterHub service: students fetch, hand in and read feedback as their hub login",
    )
    p.add_argument("--course-id", required=True, help="the course it serves (nbgrader's course id)")
    p.add_argument(
        "--store",
        default=DEFAULT_STORE,
        metavar="DIR",
        help=f"its records and files, in a folder only this account reads (default: {DEFAULT_STORE})",
    )
    p.add_argument(
        "--db",
        default="",
        metavar="URL",
        help="its records in this database (postgresql://...) instead of SQLite in --store",
    )
    p.add_argument("--max-mb", type=float, default=20.0, help="MiB of files a hand-in may hold, unpacked (20)")
    p.add_argument("--max-files", type=int, default=50, help="files a hand-in may hold (50)")
    p.add_argument(
        "--per-minute", type=int, default=10, help="hand-ins a student may try a minute, refused ones included (10)"
    )
    p.add_argument("--at-once", type=int, default=2, help="hand-ins of one student arriving at the same time (2)")
    p.add_argument(
        "--reads-per-minute",
        type=int,
        default=120,
        help="times a student may list, fetch or read feedback a minute (120; instructors' are not counted)",
    )
    p.add_argument(
        "--bind",
        default="",
        metavar="URL",
        help="where it listens (default: $JUPYTERHUB_SERVICE_URL, which the hub sets)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit import extras
    from gradekit.errors import UsageError
    from gradekit.untrusted import require_id

    extras.require("hub", "the hub exchange")
    if args.db.startswith(("postgresql", "postgres:")):
        extras.require("postgres", "the hub exchange's records on PostgreSQL")
    require_id("course", args.course_id)
    for name in ("max_mb", "max_files", "per_minute", "at_once", "reads_per_minute"):
        if getattr(args, name) <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be positive")
    from gradekit.exchange.hub.server import serve
    from gradekit.exchange.hub.wire import Limits

    limits = Limits(args.max_mb, args.max_files, args.per_minute, args.at_once, args.reads_per_minute)
    return serve(args.course_id, args.store, args.db, limits, args.bind)
