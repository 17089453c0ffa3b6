"""Which language each student reads: ``languages.csv`` at the course root, else the course's.

``languages.csv`` has a header ``student_id,language`` and one row per
student, the language a code gradekit speaks (``en``, ``zh``). Students it
does not list read ``c.Gradekit.language`` (``en`` unless set). A row that
cannot be used stops the command with one line naming the file and line:
the instructor fixes it before anyone gets a notebook in the wrong language.

The language changes the words only: a student's seed, numbers and points
never depend on it.
"""

from __future__ import annotations

import csv
from pathlib import Path

from gradekit.errors import UsageError
from gradekit.i18n.catalogs import languages
from gradekit.untrusted import require_id

LANGUAGES_FILE = "languages.csv"

_CACHE: dict[tuple[str, float], dict[str, str]] = {}


def default_language(course) -> str:
    language = str(getattr(course.settings, "language", None) or "en")
    if language not in languages():
        raise UsageError(
            f"nbgrader_config.py: c.Gradekit.language = {language!r} is not a language gradekit "
            f"speaks ({', '.join(languages())})"
        )
    return language


def student_languages(course) -> dict[str, str]:
    """student id -> language, as ``languages.csv`` sets it (read again when the file changes)."""
    path = Path(course.root) / LANGUAGES_FILE
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return {}
    key = (str(path), mtime)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = read_languages(path)
    return _CACHE[key]


def language_of(course, student: str) -> str:
    """The language ``student`` reads."""
    return student_languages(course).get(student) or default_language(course)


def read_languages(path: Path) -> dict[str, str]:
    """Parse and check ``languages.csv``; a bad row is a UsageError naming the file and line."""
    known = languages()
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path.name}: cannot be read ({exc})") from None
    rows = list(csv.reader(text.splitlines()))
    out: dict[str, str] = {}
    header = [c.strip().lower() for c in rows[0]] if rows else []
    if header[:2] != ["student_id", "language"]:
        raise UsageError(f"{path.name}:1: the first line must be the header 'student_id,language'")
    for number, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if len(row) != 2:
            raise UsageError(f"{path.name}:{number}: expected two columns 'student_id,language', found {len(row)}")
        student, language = row[0].strip(), row[1].strip().lower()
        try:
            require_id("student", student)
        except Exception as exc:  # noqa: BLE001 - an id no folder may have
            raise UsageError(f"{path.name}:{number}: {exc}") from None
        if language not in known:
            raise UsageError(
                f"{path.name}:{number}: {language!r} is not a language gradekit speaks ({', '.join(known)})"
            )
        if student in out and out[student] != language:
            raise UsageError(f"{path.name}:{number}: {student} is listed twice, with {out[student]} and {language}")
        out[student] = language
    return out


def untranslated(course, assignment: str, students: list[str]) -> dict[str, tuple[int, int | None]]:
    """language -> (how many of ``students`` read it, how many texts its catalog leaves in English:
    None when the assignment has no catalog for it at all), for the languages where anything is
    left. Only the catalog's own entries are looked at (empty or fuzzy); ``gradekit translate
    --check`` and ``gradekit check`` also find texts the catalog does not list yet."""
    from gradekit.i18n.catalogs import ENGLISH, locale_dir

    readers: dict[str, int] = {}
    for student in students:
        language = language_of(course, student)
        if language != ENGLISH:
            readers[language] = readers.get(language, 0) + 1
    out: dict[str, tuple[int, int | None]] = {}
    for language, n in sorted(readers.items()):
        po = locale_dir(course.root, assignment) / f"{language}.po"
        if not po.is_file():
            out[language] = (n, None)
            continue
        from babel.messages.pofile import read_po

        try:
            with po.open("rb") as fh:
                catalog = read_po(fh)
        except Exception:  # noqa: BLE001 - a broken catalog is reported where it is used
            continue
        left = sum(
            1
            for m in catalog
            if m.id and (m.fuzzy or not m.string or (isinstance(m.string, tuple) and not all(m.string)))
        )
        if left:
            out[language] = (n, left)
    return out
