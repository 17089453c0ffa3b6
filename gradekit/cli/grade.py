"""``gradekit grade ASSIGNMENT``: the grading page for what a person grades, on 127.0.0.1."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "grade",
        help="grade the manually graded questions (and the numbers) by answer groups and rubrics, in the "
        "browser; writes nbgrader manual grades and comments",
    )
    p.add_argument("assignment")
    p.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free one)")
    p.add_argument("--language", help="the page's language, en or zh (default: c.Gradekit.language)")
    p.add_argument("--grader", default="", help="who grades, for the log of changes (default: $USER)")
    p.add_argument("--no-token", action="store_true", help="do not ask for the printed token (a single-user machine)")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.errors import UsageError
    from gradekit.extras import require
    from gradekit.i18n.catalogs import languages
    from gradekit.i18n.languages_csv import default_language
    from gradekit.intake.untrusted import require_id
    from gradekit.manual.server import serve

    require("groups", "the grading page's answer groups (gradekit grade)")
    course = course_of(args)
    require_id("assignment", args.assignment)
    course.source_of(args.assignment)
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
            open_message=lambda line: print(line, flush=True),
        )
    except KeyboardInterrupt:
        pass
    return 0
