"""What the class report is computed from, read once: results as they stand now, the layout.

    ClassData
    ├── layout      every graded cell of the assignment, in notebook order, with its exercise
    ├── students    one Row per student in the gradebook: the result with its final marks (the
    │               instructor's manual grades, nbgrader's late penalty, the rubric items a person
    │               gave), lateness, the notes of restored tampering, and under gradekit serve
    │               every graded attempt, the one that counts among them
    ├── rubrics     every rubric of the assignment, with all its items (what the items are counted against)
    └── integrity   reports/<assignment>/integrity.json, when the integrity check has written it

Reading is the report's main cost for a large class: each results.json is
parsed once, and the gradebook is read in four queries for the whole class (not
two per student) (:func:`gradekit.gradebook.marks.read_class_marks`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from gradekit.course import Course
from gradekit.errors import TemplateError, UsageError
from gradekit.notebook import exercises as sections
from gradekit.notebook.cells import is_graded, is_solution
from gradekit.results import SubmissionResult

if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt

    from gradekit.gradebook.rubrics import Rubric

# autograde.RESULTS_FILE, not imported from there: gradekit.runners.batch brings in the graders and
# pytest, a quarter of a second the report does not need (tests/pages/test_report.py checks they agree)
RESULTS_FILE = "results.json"
# gradekit serve's attempts (service.attempts.ATTEMPTS, not imported: the report reads, it does not serve)
ATTEMPTS = Path(".gradekit") / "attempts"

GRADED, NOT_GRADABLE, NOT_SUBMITTED = "graded", "not gradable", "not submitted"


@dataclass(frozen=True)
class Cell:
    """One graded cell of the assignment, as its source notebook declares it."""

    grade_id: str
    notebook: str
    points: float
    manual: bool
    exercise: sections.Heading
    choice: bool = False  # a multiple-choice cell (choice_cells in the assignment's assignment.toml)

    @property
    def exercise_key(self) -> str:
        return f"{self.notebook}/{self.exercise.full}"


@dataclass
class Row:
    """One student: the final marks and what else the report says about them."""

    student: str
    status: str
    result: SubmissionResult | None = None
    reason: str = ""  # why not gradable
    seconds_late: float = 0.0
    notes: list[tuple[str, str]] = field(default_factory=list)  # (notebook, note) from grading
    attempts: list[SubmissionResult] = field(default_factory=list)  # every graded attempt, oldest first (serve)
    _cells: dict | None = field(default=None, repr=False)

    def cell(self, notebook: str, grade_id: str):
        """This student's result for one cell (None when it has none)."""
        if self.result is None:
            return None
        if self._cells is None:
            self._cells = {(nb.name, c.grade_id): c for nb in self.result.notebooks for c in nb.cells}
        return self._cells.get((notebook, grade_id))


@dataclass
class ClassData:
    course: Course
    assignment: str
    notebooks: list[str]
    layout: list[Cell]
    students: list[Row]
    duedate: dt.datetime | None = None
    integrity: list[dict] | None = None
    handins: list[str] = field(default_factory=list)  # the exchange ledger's reports (gradekit.exchange.ledger)
    rubrics: list[Rubric] = field(default_factory=list)  # every rubric of the assignment (gradekit grade)

    @property
    def graded(self) -> list[Row]:
        return [r for r in self.students if r.status == GRADED]

    def report_dir(self) -> Path:
        return self.course.root / "reports" / self.assignment

    def feedback_href(self, student: str, notebook: str, anchor: str | None = None) -> str:
        """The link from reports/<assignment>/index.html to a student's feedback page."""
        href = f"../../feedback/{student}/{self.assignment}/{notebook}.html"
        return href + (f"#{anchor}" if anchor else "")


def load(course: Course, assignment: str) -> ClassData:
    from gradekit.gradebook.marks import read_class_marks

    notebooks = source_notebooks(course, assignment)
    cells = _layout(notebooks, choice_cells(course, assignment))
    marks = read_class_marks(course, assignment)
    rows = []
    for student in marks.students:
        folder = course.autograded_dir(student, assignment)
        result = _read_result(folder / RESULTS_FILE)
        if result is None:
            rows.append(Row(student, NOT_SUBMITTED))
            continue
        result = marks.apply(result)
        row = Row(student, GRADED, result, seconds_late=marks.seconds_late.get(student, 0.0))
        reason = _not_gradable(result)
        if reason:
            row.status, row.reason = NOT_GRADABLE, reason
        row.notes = [(nb.name, note) for nb in result.notebooks for note in nb.notes]
        row.attempts = _attempts(course, assignment, student)
        rows.append(row)
    data = ClassData(course, assignment, list(notebooks), cells, rows, marks.duedate, rubrics=marks.rubrics)
    data.integrity = _integrity(data.report_dir() / "integrity.json")
    from gradekit.exchange.ledger import handin_reports

    data.handins = handin_reports(course, assignment)
    return data


def source_notebooks(course: Course, assignment: str) -> dict[str, dict]:
    """The assignment's source notebooks as JSON: what is graded, and under which headings.

    Read as plain JSON, not through template.AssignmentSource: the report needs
    no rendering, and validating and compiling the templates costs seconds here.
    """
    directory = course.source_of(assignment)
    notebooks = {}
    for path in sorted(directory.glob("*.ipynb")):
        try:
            notebooks[path.stem] = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise TemplateError(f"{path}: not a readable notebook ({exc})") from None
    if not notebooks:
        raise TemplateError(f"{directory} has no notebooks")
    return notebooks


def choice_cells(course: Course, assignment: str) -> set[str]:
    """The grade ids of the assignment's multiple-choice cells (``choice_cells`` in its assignment.toml)."""
    return set(course.settings_of(assignment).choice_cells)


def layout(course: Course, assignment: str) -> list[Cell]:
    """Every graded cell of the assignment, in notebook order."""
    return _layout(source_notebooks(course, assignment), choice_cells(course, assignment))


def _layout(notebooks: dict, choice: set[str]) -> list[Cell]:
    cells = []
    for name, nb in notebooks.items():
        titles = sections.headings(nb)
        for cell in nb.get("cells", []) if isinstance(nb, dict) else nb.cells:
            if not is_graded(cell):
                continue
            meta = cell["metadata"]["nbgrader"]
            gid = str(meta["grade_id"])
            cells.append(
                Cell(
                    gid,
                    name,
                    float(meta.get("points", 0) or 0),
                    is_solution(cell),
                    titles.get(gid) or sections.Heading(gid, gid),
                    gid in choice,
                )
            )
    return cells


def _read_result(path: Path) -> SubmissionResult | None:
    try:
        text = path.read_text()
    except OSError:
        return None
    try:
        return SubmissionResult.from_dict(json.loads(text))
    except (ValueError, TypeError, KeyError):
        return SubmissionResult(
            path.parent.parent.name,
            path.parent.name,
            error=f"{path.name} is unreadable: grade again with `gradekit autograde --force`",
        )


def _attempts(course: Course, assignment: str, student: str) -> list[SubmissionResult]:
    """The student's graded attempts under gradekit serve, oldest first (none under autograde alone)."""
    base = course.root / ATTEMPTS / assignment / student
    try:
        numbers = sorted(int(p.name) for p in base.iterdir() if p.name.isdigit())
    except OSError:
        return []
    found = [_read_result(base / str(k) / "autograded" / RESULTS_FILE) for k in numbers]
    return [r for r in found if r is not None and not r.error]


def _not_gradable(result: SubmissionResult) -> str:
    """Why nothing of this submission could be graded; "" when some of it was."""
    if result.error:
        return result.error
    if result.notebooks and all(nb.error for nb in result.notebooks):
        return "; ".join(cast(str, nb.error) for nb in result.notebooks)
    return ""


def _integrity(path: Path) -> list[dict] | None:
    """The integrity check's pairs: [{"students": [a, b], "evidence": [...], "score": x}, ...]."""
    if not path.is_file():
        return None
    try:
        pairs = json.loads(path.read_text())
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc})") from None
    if isinstance(pairs, dict):
        pairs = pairs.get("pairs", [])
    if not isinstance(pairs, list):
        raise UsageError(f"{path}: expected a list of pairs")
    out = []
    for pair in pairs:
        if not isinstance(pair, dict) or not isinstance(pair.get("students"), list):
            continue
        evidence = pair.get("evidence", [])
        out.append(
            {
                "students": [str(s) for s in pair["students"]][:2],
                "evidence": [
                    str(e.get("text", e)) if isinstance(e, dict) else str(e)  # integrity's sentence
                    for e in (evidence if isinstance(evidence, list) else [evidence])
                ],
                "score": pair.get("score"),
            }
        )
    return sorted(out, key=lambda p: -(p["score"] if isinstance(p["score"], (int, float)) else 0))
