"""``gradekit translate [ASSIGNMENT] --language LANG``: bring a catalog in step with its texts.

``gradekit translate ASSIGNMENT --language fr`` extracts the assignment's
texts, merges them into ``source/<assignment>/locale/fr.po`` (made if there
is none; a changed English text keeps its old translation, marked fuzzy) and
lists what is left: the author translates those entries with any PO editor,
then ``make`` (or any command: a stale catalog is compiled when first used)
puts them to work. ``--gradekit`` does the same for gradekit's own texts,
``--check`` changes nothing and exits 1 while anything is left.
"""

from __future__ import annotations

import re

from gradekit.cli.common import course_of
from gradekit.errors import UsageError

_LANGUAGE = re.compile(r"^[a-z]{2,3}(_[A-Z]{2})?$")


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
    return translate(None if args.gradekit else course_of(args), args.assignment, args.language, args.check)


def translate(course, assignment: str | None, language: str, check_only: bool = False) -> int:
    from gradekit.authoring import translation

    if not _LANGUAGE.match(language or "") or language == "en":
        raise UsageError(f"--language {language!r}: give a language code other than en, such as zh or fr")
    if course is None:
        root, assignment = None, None
    else:
        if not assignment:
            raise UsageError("name the assignment (or pass --gradekit for gradekit's own texts)")
        course.source_of(assignment)
        root = course.root
    if check_only:
        path, left = translation.po_path(root, assignment, language), translation.problems(root, assignment, language)
    else:
        path, left = translation.update(root, assignment, language)
    shown = path if root is None else path.relative_to(root)
    for line in left[:40]:
        print(f"  {line}")
    if len(left) > 40:
        print(f"  ... and {len(left) - 40} more")
    print(f"{shown}: {'up to date' if not left else f'{len(left)} to translate or check'}")
    return 1 if check_only and left else 0
