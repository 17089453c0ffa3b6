"""``gradekit grade ASSIGNMENT``: the grading page for what a person grades (inside a hub, or on 127.0.0.1)."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "grade",
        help="grade the manually graded questions (and the numbers) by answer groups and rubrics, in the "
        "browser; writes nbgrader manual grades and comments",
    )
    p.add_argument("assignment", nargs="+", help="the assignments to grade (several: a page each, and an index)")
    p.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free one)")
    p.add_argument("--language", help="the page's language, en or zh (default: c.Gradekit.language)")
    p.add_argument("--grader", default="", help="who grades, for the log of changes (default: $USER)")
    p.add_argument("--no-token", action="store_true", help="do not ask for the printed token (a single-user machine)")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.errors import GradekitError
    from gradekit.web.serving import hold_broken

    try:
        return _run(args)
    except GradekitError as exc:  # inside a hub: answer with the line for a while, then exit (never the hub's death)
        hold_broken(str(exc), say=lambda line: print(line, flush=True))
        raise


def _run(args) -> int:
    from gradekit.authoring.languages import default_language
    from gradekit.errors import UsageError
    from gradekit.extras import require
    from gradekit.hub.grading import serve
    from gradekit.i18n.catalogs import languages
    from gradekit.untrusted import require_id

    require("groups", "the grading page's answer groups (gradekit grade)")
    course = course_of(args)
    for assignment in args.assignment:
        require_id("assignment", assignment)
        course.source_of(assignment)
    language = args.language or default_language(course)
    if language not in ("en", *languages()):
        raise UsageError(f"--language must be one of {', '.join(['en', *languages()])}, not {language!r}")
    try:
        serve(
            course,
            args.assignment,
            language,
            args.grader,
            args.port,
            token=not args.no_token,
            say=lambda line: print(line, flush=True),
        )
    except KeyboardInterrupt:
        pass
    return 0
