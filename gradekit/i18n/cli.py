"""``gradekit translate`` and ``python -m gradekit.i18n compile`` (what ``make`` runs).

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
import sys
from pathlib import Path

from gradekit.errors import UsageError

_LANGUAGE = re.compile(r"^[a-z]{2,3}(_[A-Z]{2})?$")


def translate(course, assignment: str | None, language: str, check_only: bool = False) -> int:
    from gradekit.i18n import extract

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
        path, left = extract.po_path(root, assignment, language), extract.problems(root, assignment, language)
    else:
        path, left = extract.update(root, assignment, language)
    shown = path if root is None else path.relative_to(root)
    for line in left[:40]:
        print(f"  {line}")
    if len(left) > 40:
        print(f"  ... and {len(left) - 40} more")
    print(f"{shown}: {'up to date' if not left else f'{len(left)} to translate or check'}")
    return 1 if check_only and left else 0


def main(argv: list[str] | None = None) -> int:
    """``python -m gradekit.i18n compile [COURSE]``: compile every stale catalog to its ``.mo``."""
    from gradekit.i18n.catalogs import compile_all

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "compile":
        print("usage: python -m gradekit.i18n compile [COURSE_ROOT]", file=sys.stderr)
        return 2
    root = Path(argv[1]) if len(argv) > 1 else Path(".")
    written = compile_all(root)
    print(f"translations: {len(written)} catalog(s) compiled" if written else "translations: up to date")
    return 0
