"""``gradekit serve [ASSIGNMENT ...]``: grade every hand-in as it arrives, until SIGTERM or SIGINT."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="a live grading service on nbgrader's exchange: each hand-in graded and its "
        "feedback released seconds after Submit",
    )
    p.add_argument("assignment", nargs="*", help="the assignments to serve (default: every released one)")
    p.add_argument(
        "--poll",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="look at inbound/ every SECONDS instead of inotify (NFS, where inotify misses other machines' writes)",
    )
    p.add_argument("--jobs", type=int, default=0, help="grading processes per assignment (default: one per core)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="grade on this Dask distributed cluster")
    p.add_argument("--no-sandbox", action="store_true", help="run student code without bubblewrap (unsafe)")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.errors import UsageError
    from gradekit.exchange.exchanges import exchange_of
    from gradekit.extras import require
    from gradekit.grading.options import Options
    from gradekit.service.serve import serve

    if args.scheduler:
        require("cluster")
    course = course_of(args)
    assignments = list(args.assignment) or exchange_of(course).released()
    if not assignments:
        raise UsageError("nothing to serve: no assignment released to the exchange yet (gradekit release ASSIGNMENT)")
    for assignment in assignments:
        course.source_of(assignment)
    options = Options(sandboxed=not args.no_sandbox, jobs=args.jobs, scheduler=args.scheduler)
    return serve(course, assignments, options, args.poll)
