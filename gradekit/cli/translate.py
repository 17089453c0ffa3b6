"""``gradekit translate [ASSIGNMENT] --language LANG``: bring a catalog in step with its texts."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "translate",
        help="bring ASSIGNMENT's catalog for a language in step with its texts "
        "(source/<assignment>/locale/<lang>.po) and list what is left to translate",
    )
    p.add_argument("assignment", nargs="?")
    p.add_argument("--language", required=True, help="a language code, e.g. zh")
    p.add_argument("--gradekit", action="store_true", help="gradekit's own catalog instead (gradekit/locale/)")
    p.add_argument("--check", action="store_true", help="change nothing: exit 1 if anything is left to translate")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.i18n.cli import translate

    return translate(None if args.gradekit else course_of(args), args.assignment, args.language, args.check)
