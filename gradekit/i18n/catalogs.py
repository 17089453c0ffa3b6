"""Where the translations are, and how a language's are looked up: gettext catalogs.

Two kinds of catalog, one ``.po`` file per language, in the repository::

    gradekit/locale/<lang>.po                 gradekit's own texts (the feedback page, the
                                              graders' comparisons, the framework's messages)
    source/<assignment>/locale/<lang>.po      one assignment's texts: its notebooks' prose,
                                              comments and assert messages, its quiz, its
                                              graders' check names and mistakes

``make`` compiles each ``.po`` to a ``.mo`` beside it (:func:`compile_all`);
a catalog whose ``.mo`` is missing or older than its ``.po`` is compiled in
memory when first used, so a fresh copy of a course still speaks its
languages. A language's lookup tries the assignment's catalog, then
gradekit's, then keeps the English text. Fuzzy entries are not used.

The languages a course can give its students are English (the message ids)
and those gradekit has a catalog for.
"""

from __future__ import annotations

import gettext
import io
from pathlib import Path

from gradekit.i18n.text import Translate

PACKAGE_LOCALE = Path(__file__).resolve().parent.parent / "locale"
ENGLISH = "en"

_LOADED: dict[tuple[str, float, float], gettext.GNUTranslations] = {}


def locale_dir(course_root: Path, assignment: str) -> Path:
    """Where an assignment keeps its catalogs."""
    return Path(course_root) / "source" / assignment / "locale"


def languages() -> list[str]:
    """The languages gradekit speaks: English and every language of its own catalogs."""
    return [ENGLISH] + sorted(p.stem for p in PACKAGE_LOCALE.glob("*.po") if p.stem != ENGLISH)


def catalogs(course_root: Path | None, assignment: str | None) -> list[Path]:
    """Every ``.po`` file that gradekit and this assignment have."""
    found = sorted(PACKAGE_LOCALE.glob("*.po"))
    if course_root is not None and assignment:
        found += sorted(locale_dir(course_root, assignment).glob("*.po"))
    return found


class Translator:
    """A gettext function that knows its language (a :class:`gradekit.i18n.text.Phrase` carries
    translations of its own): the catalogs in order, then the English text."""

    __slots__ = ("language", "_catalogs")

    def __init__(self, language: str, catalogs: list[gettext.GNUTranslations]):
        self.language, self._catalogs = language, catalogs

    def __call__(self, msgid: str) -> str:
        for catalog in self._catalogs:
            text = catalog.gettext(msgid)
            if text != msgid:
                return text
        return msgid


def translator(course_root: Path | None, assignment: str | None, language: str) -> Translate:
    """The gettext function of ``language``: the assignment's catalog, then gradekit's, then English."""
    if language == ENGLISH:
        return Translator(ENGLISH, [])
    chain = (
        [locale_dir(course_root, assignment) / f"{language}.po"] if course_root is not None and assignment else []
    ) + [PACKAGE_LOCALE / f"{language}.po"]
    return Translator(language, [catalog for catalog in map(load, chain) if catalog is not None])


def load(po: Path) -> gettext.GNUTranslations | None:
    """One catalog: its compiled ``.mo`` when that is up to date, else the ``.po`` compiled now."""
    mo = po.with_suffix(".mo")
    try:
        po_time = po.stat().st_mtime
    except OSError:
        return None
    try:
        mo_time = mo.stat().st_mtime
    except OSError:
        mo_time = -1.0
    key = (str(po), po_time, mo_time)
    if key not in _LOADED:
        data = mo.read_bytes() if mo_time >= po_time else compile_po(po)
        _LOADED[key] = gettext.GNUTranslations(io.BytesIO(data))
    return _LOADED[key]


def compile_po(po: Path) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file (fuzzy entries left out), with Babel."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with open(po, "rb") as fh:
        catalog = read_po(fh, locale=po.stem)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def compile_all(course_root: Path | None = None) -> list[Path]:
    """Write a ``.mo`` beside every ``.po`` of gradekit and of the course's assignments that is
    newer than it; return those written."""
    from gradekit.atomic import atomic_write_bytes

    pos = list(PACKAGE_LOCALE.glob("*.po"))
    if course_root is not None:
        pos += sorted(Path(course_root).glob("source/*/locale/*.po"))
    written = []
    for po in pos:
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        atomic_write_bytes(mo, compile_po(po))
        written.append(mo)
    return written
