"""An assignment's settings: ``source/<assignment>/assignment.toml``, over the course's defaults.

Every setting is declared once, in :data:`KEYS`: its section, its kind, its default and
its help text (the docs' configuration reference is made from them). A key whose
``course`` flag is set has a course-wide default, ``c.Gradekit.<key>`` in
nbgrader_config.py (:mod:`gradekit.course` makes those traits from these keys); an
assignment's file overrides it. A key without one names cells or notebooks of one
assignment, and lives in that assignment's file only::

    # source/week10/assignment.toml -- never released: gradekit releases notebooks only
    [grading]
    choice_cells = ["test_concepts"]

    [serve]
    attempts = 3
    counts = "best"
    hidden_until_due = ["test_tq2"]

    [limits]
    call_timeout = 30

The file is optional (no file: the course's defaults, nothing named). A key that is not
there, or sits in another section, or belongs to the course, is a CourseError of one
line naming the file, the key and the keys there are.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradekit.errors import CourseError

SETTINGS_FILE = "assignment.toml"
SECTIONS = ("grading", "serve", "limits")


@dataclass(frozen=True)
class Key:
    """One setting of an assignment (see the module's docstring)."""

    name: str
    section: str  # one of SECTIONS
    kind: str  # "names" (a list of grade ids or notebook names), "count", "seconds", "positive", "int", "choice"
    default: Any
    help: str
    course: bool = True  # c.Gradekit.<name> sets the course-wide default
    choices: tuple[str, ...] = ()
    unit: str = ""

    def check(self, value: Any, where: str) -> Any:
        """``value`` checked for this key (ints for the integer kinds); a CourseError whose message
        starts with ``where`` ("nbgrader_config.py: c.Gradekit." or "<file>: [section] ")."""
        if self.kind == "names":
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise CourseError(f"{where}{self.name} must be a list of grade ids or notebook names, not {value!r}")
            return tuple(v.strip() for v in value)
        if self.kind == "choice":
            if value not in self.choices:
                raise CourseError(
                    f"{where}{self.name} must be one of {', '.join(map(repr, self.choices))}, not {value!r}"
                )
            return value
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if self.kind in ("count", "int"):
            low, exact = (0, "a whole number of 0 or more") if self.kind == "count" else (1, "a positive whole number")
            if not number or value != int(value) or value < low:
                raise CourseError(f"{where}{self.name} must be {exact}, not {value!r}")
            return int(value)
        if self.kind == "seconds":
            if not number or value < 0:
                raise CourseError(f"{where}{self.name} must be a number of seconds, 0 or more, not {value!r}")
            return float(value)
        if not number or value <= 0:  # "positive"
            raise CourseError(f"{where}{self.name} must be a positive number, not {value!r}")
        return float(value)


KEYS: tuple[Key, ...] = (
    Key(
        "choice_cells",
        "grading",
        "names",
        (),
        "The test cells (grade ids) of this assignment's multiple-choice items: one check per item, each "
        "wrong option a named mistake. The class report counts the options chosen, gradekit check judges "
        "guessing and the answers' diversity against chance, and gradekit serve hides them until the due date",
        course=False,
    ),
    Key(
        "before_due",
        "serve",
        "choice",
        "full",
        "What a student sees of an attempt before the due date: 'full' feedback (but the hidden cells), the "
        "'score' only, or 'received' only",
        choices=("full", "score", "received"),
    ),
    Key(
        "hidden_until_due",
        "serve",
        "names",
        (),
        "Notebooks or test cells (grade ids) of this assignment whose correctness stays hidden until the due "
        "date, besides the ones hidden by default (every test cell whose answer is a value -- a number, a "
        "word, an option -- and the choice_cells): instant feedback on them would be an oracle",
        course=False,
    ),
    Key(
        "shown_before_due",
        "serve",
        "names",
        (),
        "Test cells (grade ids) whose answer is a value but whose correctness is shown at once anyway (they "
        "are hidden until the due date by default)",
        course=False,
    ),
    Key(
        "attempts",
        "serve",
        "count",
        0,
        "Graded hand-ins per student (0: no limit); later ones are received, recorded and not graded",
    ),
    Key(
        "min_interval",
        "serve",
        "seconds",
        0.0,
        "Seconds between a student's graded hand-ins: one that arrives sooner waits, and a newer one "
        "arriving meanwhile replaces it",
        unit="s",
    ),
    Key(
        "counts",
        "serve",
        "choice",
        "last",
        "The attempt that counts: 'last' (nbgrader's rule) or 'best'",
        choices=("last", "best"),
    ),
    Key("cell_timeout", "limits", "positive", 20.0, "Seconds for running all of a notebook's cells", unit="s"),
    Key(
        "call_timeout", "limits", "positive", 10.0, "Seconds for one call of a grader into the student's code", unit="s"
    ),
    Key("notebook_budget", "limits", "positive", 120.0, "Seconds for all the graders' calls on one notebook", unit="s"),
    Key("memory", "limits", "int", 1536, "MiB of address space for the student's code", unit="MiB"),
    Key("cpu_seconds", "limits", "int", 60, "CPU seconds for the student's code, per notebook", unit="s"),
    Key("processes", "limits", "int", 64, "Processes the student's code may run at once"),
    Key("tmpfs", "limits", "int", 64, "MiB of the sandbox's private /tmp", unit="MiB"),
    Key(
        "callback_calls",
        "limits",
        "int",
        10_000,
        "Calls of the grader's functions (a score function, a reference helper) that the student's code may "
        "make in one call of theirs; one more stops their call",
    ),
    Key(
        "callback_size",
        "limits",
        "positive",
        4.0,
        "MiB of arguments the student's code may pass in one call of a grader's function (arrays counted as 8 "
        "bytes an element, an empty dimension as 1); more stops their call",
        unit="MiB",
    ),
    Key(
        "callback_seconds",
        "limits",
        "positive",
        5.0,
        "Seconds the grader's functions may spend on what the student's code passed them in one call of "
        "theirs; a function still running then is cut short and their call stopped",
        unit="s",
    ),
    Key(
        "callback_memory",
        "limits",
        "int",
        1024,
        "MiB of memory one call of a grader's function may take, beyond what the grading process holds, on what "
        "the student's code passed it (a table of a size the student chose); more stops their call",
        unit="MiB",
    ),
)
BY_NAME: dict[str, Key] = {key.name: key for key in KEYS}
LIMITS = tuple(key.name for key in KEYS if key.section == "limits")


@dataclass(frozen=True)
class AssignmentSettings:
    """An assignment's settings: its file's values, the course's defaults for the rest."""

    assignment: str
    values: Mapping[str, Any] = field(default_factory=dict)  # every key of KEYS, by name
    file: Path | None = None  # the settings file, when there is one
    set_here: frozenset[str] = frozenset()  # the keys the file sets
    notebooks: Mapping[str, Any] = field(default_factory=dict, repr=False)  # the source notebooks' JSON

    def visibility(self) -> Visibility:
        """What a student sees of this assignment before its due date (:class:`Visibility`)."""
        from gradekit.notebook.answers import test_cells, value_tests

        tests = test_cells(self.notebooks)
        values = value_tests(self.notebooks)
        named = set(self.values["hidden_until_due"])
        hidden: dict[str, str] = {}
        for test, notebook in tests.items():
            if test in named or notebook in named:
                hidden[test] = NAMED
            elif test in self.values["choice_cells"]:
                hidden[test] = CHOICE
            elif test in values and test not in self.values["shown_before_due"]:
                hidden[test] = VALUE
        return Visibility(
            self.assignment,
            self.values["before_due"],
            hidden,
            tuple(t for t in tests if t not in hidden),
            frozenset(n for n in named if n in self.notebooks),
            tuple(t for t in self.values["shown_before_due"] if t in values),
        )

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def limits(self):
        """The sandbox's limits (:class:`~gradekit.sandbox.limits.Limits`)."""
        from gradekit.sandbox.limits import Limits

        kinds = {f.name: f.type for f in dataclasses.fields(Limits)}
        return Limits(
            **{name: (float if kinds[name] == "float" else int)(self.values[name]) for name in LIMITS}  # type: ignore[arg-type]
        )


# why a test cell is hidden until the due date
NAMED, CHOICE, VALUE = "named in hidden_until_due", "multiple choice", "value answers, hidden by default"


@dataclass(frozen=True)
class Visibility:
    """What a student sees of an assignment's test cells before its due date, under gradekit serve:
    ``level`` (the before_due setting), the ``hidden`` test cells with why each is hidden (named in
    hidden_until_due, itself or its notebook; a multiple-choice cell; a value answer, hidden by
    default), the test cells ``shown`` at once, the notebooks hidden whole, and the value answers
    shown anyway (shown_before_due). After the due date everything shows."""

    assignment: str
    level: str
    hidden: Mapping[str, str]
    shown: tuple[str, ...]
    notebooks: frozenset[str] = frozenset()
    values_shown: tuple[str, ...] = ()

    @property
    def names(self) -> frozenset[str]:
        """The grade ids and notebook names whose correctness waits for the due date (a page's
        :class:`~gradekit.pages.feedback.Disclosure`)."""
        return frozenset(self.hidden) | self.notebooks

    def values_hidden(self) -> list[str]:
        """The test cells hidden by default: their answers are values (multiple choice included)."""
        return [test for test, why in self.hidden.items() if why != NAMED]

    def before(self) -> str:
        """One line: what a student sees before the due date."""
        if self.level == "received":
            return 'only that each hand-in was received (before_due = "received")'
        if self.level == "score":
            return 'the score only, no feedback (before_due = "score")'
        by_reason: dict[str, list[str]] = {}
        for test, why in self.hidden.items():
            by_reason.setdefault(why, []).append(test)
        parts = [f"{', '.join(tests)} ({why})" for why, tests in by_reason.items()]
        hidden = f"; hidden until the due date: {'; '.join(parts)}" if parts else "; nothing hidden"
        shown = f"full feedback on {len(self.shown)} test cell(s)" if self.shown else "no test cell shown"
        anyway = f"; value answers shown anyway (shown_before_due): {', '.join(self.values_shown)}"
        return shown + hidden + (anyway if self.values_shown else "")

    def after(self) -> str:
        total = len(self.shown) + len(self.hidden)
        return f"full feedback on all {total} test cell(s), with nbgrader's late penalty for late hand-ins"


def course_defaults(traits: Any) -> dict[str, Any]:
    """The course-wide values of the keys (``c.Gradekit``'s traits), checked; the declared
    defaults for the keys the course cannot set."""
    values = {}
    for key in KEYS:
        if key.course and traits is not None:
            raw = getattr(traits, key.name)
            values[key.name] = key.check(raw, "nbgrader_config.py: c.Gradekit.")
        else:
            values[key.name] = key.default
    return values


def load(
    root: Path, assignment: str, defaults: Mapping[str, Any], course_keys: Collection[str] = ()
) -> AssignmentSettings:
    """``source/<assignment>/assignment.toml`` of the course at ``root`` over ``defaults``
    (:func:`course_defaults`); a CourseError of one line for anything the file gets wrong
    (``course_keys``: the course's own settings, refused there by name)."""
    path = root / "source" / assignment / SETTINGS_FILE
    values = dict(defaults)
    notebooks = _notebooks(path.parent)
    if not path.is_file():
        return AssignmentSettings(assignment, values, notebooks=notebooks)
    where = f"source/{assignment}/{SETTINGS_FILE}"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CourseError(f"{where}: cannot be read ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise CourseError(f"{where}: not TOML: {exc}") from None
    seen: set[str] = set()
    for section, table in data.items():
        if section not in SECTIONS:
            key = BY_NAME.get(section)
            hint = f" ({section} goes in [{key.section}])" if key else ""
            raise CourseError(
                f"{where}: unknown section or key {section!r} at the top{hint}; the sections are "
                f"{', '.join(f'[{s}]' for s in SECTIONS)}"
            )
        if not isinstance(table, dict):
            raise CourseError(f"{where}: {section} must be a section, [{section}], not a value")
        for name, value in table.items():
            key = BY_NAME.get(name)
            if key is None or key.section != section:
                raise CourseError(f"{where}: {misplaced(name, section, course_keys)}")
            values[name] = key.check(value, f"{where}: [{section}] ")
            seen.add(name)
    _require_names(where, assignment, values, notebooks)
    return AssignmentSettings(assignment, values, path, frozenset(seen), notebooks)


def _notebooks(directory: Path) -> dict[str, Any]:
    """The source notebooks' JSON, read as plain JSON (no rendering); one that cannot be read is left
    out (the templates' loader names it when it is used)."""
    import json

    out = {}
    for path in sorted(directory.glob("*.ipynb")) if directory.is_dir() else []:
        try:
            out[path.stem] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    return out


def _require_names(where: str, assignment: str, values: Mapping[str, Any], notebooks: Mapping[str, Any]) -> None:
    """Every name a settings file gives is a test cell of this assignment (or, for
    hidden_until_due, one of its notebooks): a misspelt one would hide nothing."""
    from gradekit.notebook.answers import test_cells

    if not notebooks:
        return
    tests = test_cells(notebooks)
    for key in (k for k in KEYS if k.kind == "names"):
        allowed = set(tests) | (set(notebooks) if key.name == "hidden_until_due" else set())
        for name in values[key.name]:
            if name not in allowed:
                what = "a test cell or notebook" if key.name == "hidden_until_due" else "a test cell"
                raise CourseError(
                    f"{where}: {key.name}: {name!r} is not {what} of {assignment} (its test cells: "
                    f"{', '.join(tests) or 'none'}"
                    + (f"; its notebooks: {', '.join(notebooks)}" if key.name == "hidden_until_due" else "")
                    + ")"
                )


def misplaced(name: str, section: str | None, course_keys: Collection[str] = ()) -> str:
    """What is wrong with key ``name`` in ``[section]`` of a settings file, and the keys there are
    (``course_keys``: c.Gradekit's settings that only a course has)."""
    key = BY_NAME.get(name)
    here = [k.name for k in KEYS if k.section == section]
    if key is not None:
        return f"{name!r} belongs in [{key.section}], not [{section}] (the keys of [{section}]: {', '.join(here)})"
    if name in course_keys:
        return (
            f"{name!r} is the course's setting, not an assignment's: set c.Gradekit.{name} in nbgrader_config.py "
            f"(the keys of [{section}]: {', '.join(here)})"
        )
    return f"unknown key {name!r} in [{section}] (the keys of [{section}]: {', '.join(here)})"


def template(defaults: Mapping[str, Any] | None = None, sets: Mapping[str, Any] | None = None) -> str:
    """An assignment.toml with every key: ``sets`` written as values, the rest commented out with
    the course's value (``defaults``) -- what ``gradekit new`` writes."""
    defaults = defaults or {key.name: key.default for key in KEYS}
    sets = sets or {}
    lines = [
        "# This assignment's settings, read by gradekit (never released to students: only notebooks are).",
        "# A commented line shows the course's value (c.Gradekit in nbgrader_config.py, or gradekit's default);",
        "# uncomment it to set another for this assignment. Names are this assignment's own cells and notebooks.",
    ]
    for section in SECTIONS:
        lines += ["", f"[{section}]"]
        for key in (k for k in KEYS if k.section == section):
            lines += [f"# {line}" for line in _wrapped(key.help)]
            if key.name in sets:
                lines.append(f"{key.name} = {_toml(sets[key.name])}")
            else:
                lines.append(f"# {key.name} = {_toml(defaults.get(key.name, key.default))}")
    return "\n".join(lines) + "\n"


def _wrapped(text: str, width: int = 98) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width=width)


def _toml(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float) and value == int(value):
        return str(int(value)) if abs(value) < 1e15 else repr(value)
    return repr(value)
