"""The message ids of gradekit and of an assignment, and keeping a catalog in step with them (Babel).

What is extracted::

    gradekit/**/*.py                    _("...") and N_("...")
    gradekit/pages/templates/*.html           {% trans %} blocks and _("...") (the feedback page)
    source/<a>/*.ipynb                  each markdown cell's whole source (not a free-text answer);
                                        in code cells, {% trans %} blocks and {{ _("...") }}
    source/<a>/params*.py               N_("...") (quiz texts the notebook shows with _(...))
    autograder/<a>/*.py, solutions/<a>/*.py
                                        _("...") and N_("..."), and each grader test's name as the
                                        feedback shows it (its docstring's first line)

:func:`update` merges the ids into a language's ``.po`` with Babel's own
rules (a changed English text keeps its old translation, marked fuzzy, until
someone checks it); :func:`problems` lists what a catalog still lacks: an id
with no translation, a fuzzy one, or a translation whose placeholders
(``{name}``, ``%(name)s``, ``{{ jinja }}``) differ from the English.
"""

from __future__ import annotations

import ast
import io
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, cast

import nbformat

from gradekit.i18n.catalogs import PACKAGE_LOCALE, locale_dir

if TYPE_CHECKING:  # pragma: no cover - babel's, imported late
    from babel.messages.catalog import Catalog

KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2)}
_QA_SET = ("mistakes", "correct")


def gradekit_messages() -> Catalog:
    """Every message id of gradekit's own code."""
    from babel.messages.catalog import Catalog

    catalog = Catalog(project="gradekit", charset="utf-8")
    package = PACKAGE_LOCALE.parent
    for path in sorted(package.rglob("*.py")):
        _python(catalog, path, package.parent)
    for path in sorted((package / "pages" / "templates").glob("*.html")):
        _jinja(catalog, path.read_bytes(), f"{path.relative_to(package.parent)}", 0)
    return catalog


def assignment_messages(course_root: Path, assignment: str) -> Catalog:
    """Every message id of one assignment: its notebooks, params, graders and reference."""
    from babel.messages.catalog import Catalog

    root = Path(course_root)
    catalog = Catalog(project=assignment, charset="utf-8")
    source = root / "source" / assignment
    for path in sorted(source.glob("*.ipynb")):
        _notebook(catalog, path, root)
    for path in sorted(source.glob("params*.py")):
        _python(catalog, path, root)
    for base in (root / "autograder" / assignment, root / "solutions" / assignment):
        for path in sorted(base.rglob("*.py")) if base.is_dir() else []:
            if any(part in _QA_SET or part == "__pycache__" for part in path.relative_to(base).parts):
                continue
            _python(catalog, path, root)
            if path.name.startswith("test_"):
                _test_names(catalog, path, root)
    return catalog


def _python(catalog, path: Path, root: Path) -> None:
    from babel.messages.extract import extract

    where = str(path.relative_to(root))
    with open(path, "rb") as fh:
        for line, message, comments, context in extract("python", fh, keywords=KEYWORDS, options={}):
            catalog.add(message, locations=[(where, line)], auto_comments=comments, context=context)


def _jinja(catalog, source: bytes, where: str, offset: int, comment: str | None = None) -> None:
    from babel.messages.extract import extract
    from jinja2.ext import babel_extract

    for line, message, comments, context in extract(
        babel_extract,  # type: ignore[arg-type]  # jinja2's extractor, typed apart from babel's
        io.BytesIO(source),
        keywords=KEYWORDS,
        options={"extensions": "jinja2.ext.i18n"},
    ):
        catalog.add(
            message,
            locations=[(where, offset + line)],
            auto_comments=list(comments) + ([comment] if comment else []),
            context=context,
        )


def _notebook(catalog, path: Path, root: Path) -> None:
    from gradekit.authoring.template import message_of

    where = str(path.relative_to(root))
    nb = nbformat.read(str(path), as_version=4)
    for index, cell in enumerate(nb.cells):
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or f"cell {index}"
        if cell.cell_type == "markdown":
            message = message_of(cell)
            if message:
                catalog.add(
                    message,
                    locations=[(where, index)],
                    auto_comments=[f"markdown cell {gid}: a jinja2 template; keep every {{{{ ... }}}} as it is"],
                )
        elif cell.cell_type == "code":
            _jinja(catalog, cell.source.encode(), where, index * 1000, f"code cell {gid}")


def _test_names(catalog, path: Path, root: Path) -> None:
    """Each test's name as the feedback shows it: its docstring's first line, else its own name."""
    where = str(path.relative_to(root))
    try:
        tree = ast.parse(path.read_bytes())
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.name.startswith("test_"):
            continue
        doc = ast.get_docstring(node)
        parametrized = any("parametrize" in ast.unparse(d) for d in node.decorator_list)
        if doc:
            name = doc.strip().splitlines()[0]
        elif not parametrized:
            name = node.name.removeprefix("test_").replace("_", " ")
        else:
            continue
        catalog.add(name, locations=[(where, node.lineno)], auto_comments=["the name of a hidden check"])


# -- the catalogs ---------------------------------------------------------------------------------


def po_path(course_root: Path | None, assignment: str | None, language: str) -> Path:
    """Where a language's catalog is: the assignment's, or gradekit's own (no assignment)."""
    if assignment is None:
        return PACKAGE_LOCALE / f"{language}.po"
    assert course_root is not None  # an assignment's catalog is in its course
    return locale_dir(course_root, assignment) / f"{language}.po"


def messages(course_root: Path | None, assignment: str | None) -> Catalog:
    return gradekit_messages() if assignment is None else assignment_messages(cast(Path, course_root), assignment)


def update(course_root: Path | None, assignment: str | None, language: str) -> tuple[Path, list[str]]:
    """Bring a language's catalog in step with the code (created if there is none); returns it
    and what it still lacks (:func:`problems`)."""
    from babel.messages.pofile import read_po, write_po

    from gradekit.atomic import atomic_write_bytes

    template = messages(course_root, assignment)
    path = po_path(course_root, assignment, language)
    if path.exists():
        with open(path, "rb") as fh:
            catalog = read_po(fh, locale=language)
        template.creation_date = catalog.creation_date  # no new date in the file when nothing changed
        catalog.update(template, update_header_comment=False)
    else:
        from babel.messages.catalog import Catalog

        catalog = Catalog(
            locale=language,
            project=template.project,
            charset="utf-8",
            fuzzy=False,
            header_comment=f"# {language} translations of {template.project}'s texts for students.\n"
            "# Update with `gradekit translate`, compile with `make`.",
            copyright_holder=None,
            msgid_bugs_address=None,
            last_translator=None,
            language_team=None,
        )
        catalog.update(template)
    catalog.obsolete.clear()
    out = io.BytesIO()
    write_po(out, catalog, width=100, omit_header=False, sort_output=False, include_previous=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, out.getvalue())
    return path, problems(course_root, assignment, language, template)


def problems(course_root: Path | None, assignment: str | None, language: str, template=None) -> list[str]:
    """What the language's catalog lacks, one line each (empty: every id is translated)."""
    from babel.messages.pofile import read_po

    template = template if template is not None else messages(course_root, assignment)
    path = po_path(course_root, assignment, language)
    if not path.exists():
        return [f"{path}: no catalog (gradekit translate ... --language {language} makes one)"]
    with open(path, "rb") as fh:
        catalog = read_po(fh, locale=language)
    out = []
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id, context=message.context)
        where = f"{path.name}: {_short(message.id)!r}"
        if found is None or not found.string:
            out.append(f"{where}: not translated")
        elif found.fuzzy:
            out.append(f"{where}: fuzzy (the English changed: check the translation)")
        # a plural entry's (ngettext) id and string are tuples, which this does not handle (none is used)
        elif _placeholders(cast(str, found.id)) != _placeholders(cast(str, found.string)):
            out.append(f"{where}: the placeholders differ from the English")
    return out


_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_FORMAT = re.compile(r"%\(\w+\)s|\{[^{}\s]*\}")


def _placeholders(text: str):
    """A markdown cell (a jinja2 template): the set of its ``{{ ... }}`` and ``{% ... %}`` (its
    LaTeX braces are prose); any other message: its format placeholders, each as often as used."""
    if "{{" in text or "{%" in text:
        return {re.sub(r"\s+", "", p) for p in _JINJA.findall(text)}
    return Counter(_FORMAT.findall(text))


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
