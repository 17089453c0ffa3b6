"""``python -m gradekit.i18n compile``: every stale catalog compiled (what ``make`` runs).

``gradekit translate`` keeps a catalog in step with its texts (:mod:`gradekit.cli.translate`,
:mod:`gradekit.authoring.translation`); this compiles what the author translated.
"""

from __future__ import annotations

import sys
from pathlib import Path


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
