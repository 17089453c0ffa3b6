"""An assignment's source: jinja2 notebook templates and a params generator.

``source/<assignment>/`` holds one or more ``*.ipynb`` whose cell sources are
jinja2 templates (StrictUndefined), and ``params.py`` with
``generate(rng: numpy.random.Generator) -> dict`` (plus, optionally,
``params_<name>.py`` generators with streams of their own). The params must be
JSON-serialisable so a variant can always be rebuilt exactly.

Filters available in templates:

* ``{{ X | array }}`` -- a nested list as a Python literal ``np.array([...])``
* ``{{ v | fmt(3) }}`` -- a number (or list of numbers) with N decimals

A template is written in English and rendered in one language per student
(:mod:`gradekit.i18n`): a markdown cell's whole source is its message id (its
translation is a template too, with the same ``{{ ... }}``); in code cells,
``{% trans %}...{% endtrans %}`` and ``{{ _("...") }}`` mark comments,
docstrings and assert messages, and ``{{ _(q.text) }}`` translates a text
from the params. Code, metadata and numbers are the same in every language.
"""

from __future__ import annotations

import contextlib
import functools
import json
import signal
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
import numpy as np

from gradekit.course import Course
from gradekit.errors import TemplateError
from gradekit.imports import course_module
from gradekit.notebook.nodes import from_dict
from gradekit.notebook.nodes import read as read_notebook

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode

    from gradekit.notebook.exercises import Heading


def _literal(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return repr(value)


def array_filter(value: Any) -> str:
    return f"np.array({_literal(value)})"


def fmt_filter(value: Any, digits: int = 3) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(fmt_filter(v, digits) for v in value) + "]"
    return f"{float(value):.{digits}f}"


@functools.cache
def _environment() -> jinja2.Environment:
    """The one environment of every cell's template (it holds no state of a render: gettext comes with
    the context)."""
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False, extensions=["jinja2.ext.i18n"]
    )
    env.filters["array"] = array_filter
    env.filters["fmt"] = fmt_filter
    return env


# a cell's template, compiled once per process and looked up by its text: every load of an assignment (a
# per-student answer key, each run of a long service) compiles the same cells, and the compiling, not the
# rendering, is what a load costs; a service that outlives many edits of its templates drops the oldest
@functools.lru_cache(maxsize=4096)
def _template_of(source: str) -> jinja2.Template:
    """``source`` compiled (jinja2.TemplateSyntaxError if it is not a template)."""
    return _environment().from_string(source)


@dataclass
class AssignmentSource:
    """The templates and generator of one assignment, compiled once per run."""

    name: str
    directory: Path
    notebooks: dict[str, NotebookNode]
    generators: dict[str, Callable[[np.random.Generator], dict]]
    _compiled: dict[tuple[str, int], jinja2.Template | None] = field(default_factory=dict, repr=False)
    course_root: Path | None = None
    _translated: dict[tuple[str, int, str], jinja2.Template | None] = field(default_factory=dict, repr=False)
    _translators: dict[str, Callable[[str], str]] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, course: Course, assignment: str) -> AssignmentSource:
        directory = course.source_of(assignment)
        paths = sorted(directory.glob("*.ipynb"))
        if not paths:
            raise TemplateError(f"{directory} has no notebooks")
        notebooks = {}
        for path in paths:
            try:
                notebooks[path.stem] = read_notebook(path)
            except Exception as exc:
                raise TemplateError(f"{path}: not a readable notebook ({exc})") from None
        generators = {path.stem: _load_generator(path) for path in sorted(directory.glob("params*.py"))}
        source = cls(assignment, directory, notebooks, generators, course_root=course.root)
        source._compile()
        return source

    def _compile(self) -> None:
        self._frozen = {name: json.dumps(nb) for name, nb in self.notebooks.items()}
        for name, nb in self.notebooks.items():
            for index, cell in enumerate(nb.cells):
                try:
                    self._compiled[(name, index)] = _template_of(cell.source) if _is_template(cell.source) else None
                except jinja2.TemplateSyntaxError as exc:
                    raise TemplateError(f"{_where(name, index, cell)}: template syntax: {exc}") from None

    def params(self, seed: int) -> dict:
        """Run the generators for one seed; check the result is JSON.

        ``params.py`` draws from ``default_rng(seed)``; every other
        ``params_<name>.py`` from a stream of its own, ``default_rng([seed, crc32(name)])``,
        so adding a notebook (and its generator) never changes the numbers an
        existing notebook gives a student.
        """
        params: dict = {}
        for name, generate in self.generators.items():
            rng = np.random.default_rng(seed if name == "params" else [seed, zlib.crc32(name.encode())])
            try:
                with _deadline(GENERATE_SECONDS):
                    part = generate(rng)
            except TemplateError:
                raise
            except _Overtime:
                raise TemplateError(
                    f"{self.name}/{name}.py: generate() did not return within {GENERATE_SECONDS:g} s "
                    "for one student's seed (a loop that never draws what it waits for?)"
                ) from None
            except Exception as exc:  # noqa: BLE001 - a course bug, whatever it raises: it stops the run
                raise TemplateError(
                    f"{self.name}/{name}.py: generate() raised {type(exc).__name__}: {exc} for one student's seed"
                ) from None
            if not isinstance(part, dict):
                raise TemplateError(f"{self.name}/{name}.py: generate() must return a dict")
            clash = set(part) & set(params)
            if clash:
                raise TemplateError(f"{self.name}/{name}.py: params {sorted(clash)} are set by another generator")
            params.update(part)
        try:
            return json.loads(json.dumps(params, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise TemplateError(f"{self.name}: generate() must return plain JSON data ({exc})") from None

    def digest(self, name: str, language: str = "en") -> str:
        """A digest of notebook ``name``'s template in ``language`` (its translations included):
        equal digests and params render equal notebooks."""
        digests = self.__dict__.setdefault("_digests", {})
        if (name, language) not in digests:
            import hashlib

            h = hashlib.sha256(self._frozen[name].encode())
            if language != "en":
                from gradekit.i18n.catalogs import catalogs

                for po in catalogs(self.course_root, self.name):
                    if po.stem == language:
                        h.update(b"\0" + po.read_bytes())
            digests[(name, language)] = h.hexdigest()
        return digests[(name, language)]

    def headings(self, name: str, language: str = "en") -> tuple[dict[str, Heading], str]:
        """The exercise heading each graded cell of notebook ``name`` sits under (by grade_id), and the
        notebook's own title ("" when it has none, or when it is a template), as the source says them
        in ``language``: each markdown cell as its translation gives it (gradekit.notebook.exercises)."""
        found = self.__dict__.setdefault("_headings", {})
        if (name, language) not in found:
            from gradekit.notebook import exercises

            nb = json.loads(self._frozen[name])
            if language != "en":
                translate = self.translator(language)
                for cell in nb.get("cells", []):
                    source = cell.get("source", "")
                    source = "".join(source) if isinstance(source, list) else source
                    if message_of({**cell, "source": source}):
                        cell["source"] = translate(source)
            title = exercises.title(nb) or ""
            found[(name, language)] = (exercises.headings(nb), "" if "{" in title else title)
        return found[(name, language)]

    def render(self, params: dict, language: str = "en") -> dict[str, NotebookNode]:
        """Every notebook with every cell rendered for these params, in ``language``."""
        translate = self.translator(language)
        context = {
            **params,
            "gettext": translate,
            "_": translate,
            "ngettext": lambda one, many, n: translate(one if n == 1 else many),
        }
        out = {}
        for name, _nb in self.notebooks.items():
            # a JSON round trip is several times faster than copy.deepcopy of NotebookNodes
            rendered = from_dict(json.loads(self._frozen[name]))
            for index, cell in enumerate(rendered.cells):
                template = self._template(name, index, cell, language)
                if template is None:
                    continue  # plain text: it renders to itself
                try:
                    cell.source = template.render(**context)
                except jinja2.UndefinedError as exc:
                    raise TemplateError(f"{_where(name, index, cell, language)}: {exc.message}") from None
            out[name] = rendered
        return out

    def translator(self, language: str) -> Callable[[str], str]:
        """The gettext function of ``language`` for this assignment (see gradekit.i18n.catalogs)."""
        if language not in self._translators:
            from gradekit.i18n.catalogs import translator

            self._translators[language] = translator(self.course_root, self.name, language)
        return self._translators[language]

    def _template(self, name: str, index: int, cell, language: str) -> jinja2.Template | None:
        """A cell's template in ``language``: a markdown cell's translated source, compiled once;
        else the English template (whose ``{% trans %}`` parts are looked up at render time);
        None for a cell that renders to itself."""
        english = self._compiled[(name, index)]
        if language == "en" or cell.cell_type != "markdown" or not message_of(cell):
            return english
        key = (name, index, language)
        if key not in self._translated:
            translated = self.translator(language)(cell.source)
            try:
                self._translated[key] = _template_of(translated) if translated != cell.source else None
            except jinja2.TemplateSyntaxError as exc:
                raise TemplateError(f"{_where(name, index, cell, language)}: template syntax: {exc}") from None
        return self._translated[key] or english


def _where(name: str, index: int, cell, language: str = "en") -> str:
    """A cell as an error names it: the notebook, its index (from 0), the language, its grade id or
    cell id (``week3.ipynb cell 2 (zh translation) 'md_intro'``)."""
    label = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or cell.get("id") or ""
    return (
        f"{name}.ipynb cell {index}"
        + ("" if language == "en" else f" ({language} translation)")
        + (f" '{label}'" if label else "")
    )


def message_of(cell) -> str | None:
    """The message id of a markdown cell (its whole source), or None: a cell without words, or a
    free-text answer (the student replaces it; the answer key stays as written)."""
    if cell.get("cell_type") != "markdown" or cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
        return None
    source = cell.get("source", "")
    return source if any(ch.isalpha() for ch in source) else None


GENERATE_SECONDS = 10.0  # one variant's params: a generator that takes longer is a course bug


class _Overtime(BaseException):
    """Raised in a generator that overran its deadline (a BaseException: its own ``except
    Exception`` must not swallow it)."""


@contextlib.contextmanager
def _deadline(seconds: float):
    """Interrupt the block after ``seconds`` (SIGALRM; in the main thread only, else no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def overtime(signum, frame):
        raise _Overtime()

    previous = signal.signal(signal.SIGALRM, overtime)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)


def _is_template(source: str) -> bool:
    """Whether jinja2 could render ``source`` to anything but itself: it has a tag, a variable or a
    comment, or a carriage return (jinja2 writes every line ending as \\n)."""
    return "{{" in source or "{%" in source or "{#" in source or "\r" in source


def _load_generator(path: Path) -> Callable[[np.random.Generator], dict]:
    try:
        module = course_module(f"gradekit_params_{abs(hash(str(path)))}", path)
    except Exception as exc:
        raise TemplateError(f"{path}: {type(exc).__name__}: {exc}") from None
    if not callable(getattr(module, "generate", None)):
        raise TemplateError(f"{path} must define generate(rng) -> dict")
    return module.generate
