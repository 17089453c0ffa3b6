"""Results: one typed currency from the graders to the gradebook, feedback and report.

    SubmissionResult            one student's assignment
    └── NotebookResult          one notebook: its title, what grading restored or noticed
        ├── CellRun             how each of the student's code cells ran
        └── CellResult          one autograded (or manually graded) cell: its exercise, the answer graded
            ├── Check           one hidden test: passed or not, and why
            ├── Finding         a known mistake the checks' evidence names
            ├── Relation        how the wrong values relate to the right ones, when none is named
            └── RubricItem      an item of a rubric a person gave the answer (gradekit grade)

All of them are plain dataclasses; :meth:`SubmissionResult.to_dict` and
:meth:`~SubmissionResult.from_dict` turn the whole tree into plain data and back, so a
result can cross a process boundary (a pool or Dask worker) and be stored as JSON.

A result is built while it is graded, and sealed once graded (:meth:`SubmissionResult.seal`:
the pipeline's last step, and every result read back): from then on none of its values changes
(an assignment raises ``dataclasses.FrozenInstanceError``). What happens to it afterwards makes a
new value (``dataclasses.replace``, :func:`amended`): the gradebook's late penalty, a person's
manual grades and rubric items (:mod:`gradekit.gradebook.marks`), so that what a page shows never
depends on the order things were done in.

A result holds everything a page shows of a grading, so that the feedback pages and the
class report are functions of results and never reopen a notebook or a store: grading
fills in the exercise titles (from the assignment's source) and the answers graded (from
the graded notebook); :mod:`gradekit.gradebook.marks` adds what people decided since --
manual grades, the late penalty, rubric items.

Every text in a result is English -- the instructor's language, and the
catalogue names the class report and ``gradekit check`` count -- whatever
the student's language. ``SubmissionResult.translations`` holds what the
student reads instead (English -> their language); a page shows a result
through a :class:`gradekit.i18n.text.View`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import FrozenInstanceError, asdict, dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course

RESULTS_FILE = "results.json"  # autograded/<student>/<assignment>/results.json

_Id = TypeVar("_Id")  # a grade's id, as the caller's gradebook names it
_V = TypeVar("_V", bound="_Sealable")


class _Sealable:
    """A value of a result: its fields change while it is graded, never after it is sealed."""

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_sealed") and name in self.__dataclass_fields__:  # type: ignore[attr-defined]
            raise FrozenInstanceError(
                f"cannot assign to field {name!r}: a graded result does not change (make a new one: replace())"
            )
        object.__setattr__(self, name, value)

    def _seal(self) -> None:
        for name in _field_names(type(self)):
            value = getattr(self, name)
            for item in value if isinstance(value, list) else (value,):
                if isinstance(item, _Sealable):
                    item._seal()
        object.__setattr__(self, "_sealed", True)

    @property
    def sealed(self) -> bool:
        return bool(self.__dict__.get("_sealed"))


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """A result class's fields, looked up once: a class's thousand results are sealed field by field."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def amended(value: _V, **changes: Any) -> _V:
    """``value`` with ``changes``: a new value, sealed when ``value`` is (``dataclasses.replace``)."""
    new = replace(value, **changes)  # type: ignore[type-var]
    if value.sealed:
        new._seal()
    return new


@dataclass
class Check(_Sealable):
    name: str
    passed: bool
    message: str = ""
    weight: float = 1.0
    mistake: str | None = None  # the known wrong mistake this failure was diagnosed as (its catalogue name)
    candidates: list[str] = field(default_factory=list)  # the mistakes the wrong value matched on this input
    ruled_out: list[str] = field(default_factory=list)  # the mistakes it was compared with and did not match
    observations: list[str] = field(default_factory=list)  # what the property probes saw (unexplained values)
    # the parts of a failed check whose message says only that their values differ: [what, wrong, size]
    # each, and the comparison's [rtol, atol] (a page shows such checks together, as one line)
    differs: list[list[str | int]] = field(default_factory=list)
    tolerance: list[float] = field(default_factory=list)
    # how the wrong value relates to the right one, on this input (gradekit.graders.relations): weighed
    # with the cell's other checks into CellResult.relations, then dropped (None in a stored result)
    evidence: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def coinciding(self) -> list[str]:
        """The mistakes this wrong value matched together: on this input they give the same numbers,
        so it is no evidence for either."""
        return self.candidates if len(self.candidates) > 1 else []


@dataclass
class Finding(_Sealable):
    """What the evidence of a cell's checks says about one thing the checks looked at."""

    mistakes: list[str]  # one: the mistake is named; several: consistent with any of them
    checks: int  # the failed checks whose values match it
    failed: int  # the failed checks that compared their value with the catalogue
    about: str = ""  # the check's name, when the cell's checks looked at several things
    more: int = 0  # of those, further cases of the same tests, run past their first failure


@dataclass
class Relation(_Sealable):
    """How the wrong values of a cell's failed checks relate to the right ones (gradekit.grading.relate):
    said when no known mistake is named."""

    subject: str  # what was compared ("the weights"); "" for a cell's one value
    family: str  # the family's name (a module of gradekit.graders.relations: factor, elementwise, where, ...)
    args: list[str]  # one: the relation; several: the values fit any of them
    details: dict[str, Any] = field(default_factory=dict)  # what the sentence shows (sizes, factors, steps)
    checks: int = 0  # the failed checks it holds on
    failed: int = 0  # the failed checks of that subject
    tried: int = 0  # of which it was tried on (a search that calls the functions again tries a few)
    more: int = 0  # of the failed checks, further cases of the same tests, run past their first failure
    of: str = ""  # what it is of, as the engine names it ("softmax#0"; several joined by ","), for an audit


@dataclass
class RubricItem(_Sealable):
    """One item of a rubric that a person gave an answer (gradekit.gradebook.rubrics): one sentence, and
    what it did to the score."""

    text: str  # the sentence as the rubric holds it (its translation: SubmissionResult.translations)
    points: float  # added to the score; negative: taken off (-0.0: an item worth nothing, taken off)


@dataclass
class CellResult(_Sealable):
    grade_id: str
    points: float
    score: float | None  # None: needs a manual grade
    checks: list[Check] = field(default_factory=list)
    manual: bool = False
    by_hand: bool = False  # the score is the instructor's (a manual grade, or an override in formgrader)
    diagnosis: list[str] = field(default_factory=list)  # the mistake(s) the evidence of all checks points to
    # (gradekit.grading.diagnosis.diagnose)
    findings: list[Finding] = field(default_factory=list)  # every finding; diagnosis is the best-supported one
    relations: list[Relation] = field(default_factory=list)  # what the values show, when nothing is named
    answered: bool = True  # False: a free-text answer left as the stub
    exercise: str = ""  # the heading the cell sits under in its notebook (gradekit.notebook.exercises); "" none
    answer: str = ""  # the student's code or text this cell grades, as graded
    # the items a person gave the answer with a rubric; None: no person graded it with one
    rubric: list[RubricItem] | None = None

    @property
    def passed(self) -> bool:
        return self.score is not None and self.score >= self.points


@dataclass
class CellRun(_Sealable):
    cell_id: str
    ok: bool
    error: str | None = None


@dataclass
class NotebookResult(_Sealable):
    name: str
    cells: list[CellResult] = field(default_factory=list)
    runs: list[CellRun] = field(default_factory=list)
    error: str | None = None  # the notebook could not be graded at all
    late_penalty: float | None = None  # points taken off for lateness (nbgrader's, from the gradebook)
    title: str = ""  # the notebook's own title ("# ..." in its source); "" none
    notes: list[str] = field(default_factory=list)  # what grading restored or noticed (tampering put back)

    @property
    def score(self) -> float:
        return sum(c.score or 0.0 for c in self.cells)

    @property
    def final(self) -> float:
        """The score after the late penalty: what ``nbgrader export`` reports."""
        return max(self.score - (self.late_penalty or 0.0), 0.0)

    @property
    def possible(self) -> float:
        return sum(c.points for c in self.cells)


@dataclass
class SubmissionResult(_Sealable):
    student: str
    assignment: str
    notebooks: list[NotebookResult] = field(default_factory=list)
    error: str | None = None  # why nothing could be graded (zero with a reason)
    timestamp: str | None = None
    receipt: str | None = None  # the signed receipt of the hand-in graded (gradekit.exchange.receipts)
    handin: int | None = None  # which of the student's hand-ins it was (the ledger's number; not a graded attempt)
    seconds: float = 0.0
    student_seconds: float = 0.0  # of which the student's code ran (cells and graders' calls), per the worker
    startup_seconds: float = 0.0  # of which it waited for its sandbox to start (a grading process's first)
    digest: str = ""  # hash of the submitted files: regrading unchanged work is a no-op
    notes: list[str] = field(default_factory=list)  # about the submission as a whole (e.g. its timestamp)
    language: str = "en"  # the language the student reads (languages.csv)
    translations: dict[str, str] = field(default_factory=dict)  # English text -> the student's language
    timeouts: int = 0  # calls or cell runs of the student's code stopped at a deadline
    kills: int = 0  # times the student's process died or broke the protocol and was killed
    # not a field (no annotation): a result reused as stored is marked True, for the progress line only
    unchanged = False

    def seal(self) -> SubmissionResult:
        """This result, graded: none of its values changes from now on (see the module's docstring)."""
        self._seal()
        return self

    @property
    def score(self) -> float:
        return sum(n.score for n in self.notebooks)

    @property
    def possible(self) -> float:
        return sum(n.possible for n in self.notebooks)

    @property
    def late_penalty(self) -> float:
        return sum(n.late_penalty or 0.0 for n in self.notebooks)

    @property
    def final(self) -> float:
        return sum(n.final for n in self.notebooks)

    def cell(self, grade_id: str) -> CellResult | None:
        for nb in self.notebooks:
            for cell in nb.cells:
                if cell.grade_id == grade_id:
                    return cell
        return None

    def to_dict(self) -> dict:
        """``dataclasses.asdict(self)``, in a quarter of the time (every result is written twice)."""
        return _plain(self)

    @classmethod
    def from_dict(cls, data: dict) -> SubmissionResult:
        notebooks = []
        for nb in data.get("notebooks", []):
            cells = [
                CellResult(
                    **{
                        **c,
                        "checks": [Check(**k) for k in c.get("checks", [])],
                        "findings": [Finding(**f) for f in c.get("findings", [])],
                        "relations": [Relation(**r) for r in c.get("relations", [])],
                        "rubric": None if c.get("rubric") is None else [RubricItem(**i) for i in c["rubric"]],
                    }
                )
                for c in nb.get("cells", [])
            ]
            runs = [CellRun(**r) for r in nb.get("runs", [])]
            notebooks.append(
                NotebookResult(
                    nb["name"],
                    cells,
                    runs,
                    nb.get("error"),
                    nb.get("late_penalty"),
                    nb.get("title", ""),
                    list(nb.get("notes", [])),
                )
            )
        rest = {k: v for k, v in data.items() if k != "notebooks"}
        if "attempt" in rest:  # stored before a hand-in's number was named apart from a graded attempt's
            rest.setdefault("handin", rest.pop("attempt"))
        return cls(notebooks=notebooks, **rest).seal()


_FIELDS: dict[type, tuple[str, ...]] = {}
_PLAIN = frozenset((str, int, float, bool))


def _plain(value):
    """dataclasses.asdict for these results: their fields hold plain values, lists and dataclasses."""
    kind = type(value)
    if kind in _PLAIN or value is None:
        return value
    names = _FIELDS.get(kind)
    if names is None and is_dataclass(kind):
        names = _FIELDS[kind] = tuple(f.name for f in fields(kind))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if kind is list:
        return [_plain(v) for v in value]
    return asdict(cast(Any, value)) if is_dataclass(value) else copy.deepcopy(value)  # an instance: kind is not type


def with_late_penalties(result: SubmissionResult, penalties: Mapping[str, float | None]) -> SubmissionResult:
    """``result`` with each notebook's late penalty as ``penalties`` gives it (by notebook; none where it
    gives none): a new value when any differs (``result`` itself otherwise)."""
    notebooks = []
    for nb in result.notebooks:
        penalty = penalties.get(nb.name) or None
        notebooks.append(nb if nb.late_penalty == penalty else amended(nb, late_penalty=penalty))
    if all(a is b for a, b in zip(notebooks, result.notebooks, strict=True)):
        return result
    return amended(result, notebooks=notebooks)


def grade_writes(
    result: SubmissionResult, grades: Mapping[tuple[str, str], tuple[_Id, float | None]]
) -> list[tuple[_Id, float | None, bool, bool]]:
    """What recording ``result`` writes to the gradebook's grades of its submission: (grade id,
    auto score, needs a manual grade, a manually graded cell) for each grade it holds a score
    for. ``grades``: (notebook, cell) -> (grade id, manual score), as the gradebook holds them.
    A submission not graded at all gets a zero on every cell, with nothing left for a person."""
    if not result.notebooks:
        return [(grade_id, 0.0, False, False) for grade_id, _manual in grades.values()]
    writes: list[tuple[_Id, float | None, bool, bool]] = []
    for nb in result.notebooks:
        for cell in nb.cells:
            grade = grades.get((nb.name, cell.grade_id))
            if grade is None:
                continue
            grade_id, manual = grade
            if cell.manual:
                writes.append((grade_id, None, manual is None, True))
            else:
                writes.append((grade_id, cell.score, False, False))
    return writes


def load(path: Path) -> SubmissionResult | None:
    """A stored result, or None when there is none or it cannot be read (half-written, another
    version's format): the caller grades again, or reports the submission as not graded."""
    try:
        return SubmissionResult.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def iter_results(course: Course, assignment: str, students: Iterable[str]) -> Iterator[SubmissionResult]:
    """The stored results of these students (those graded and readable)."""
    for student in students:
        result = load(course.autograded_dir(student, assignment) / RESULTS_FILE)
        if result is not None:
            yield result
