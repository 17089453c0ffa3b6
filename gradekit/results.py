"""Results: one typed currency from the graders to the gradebook, feedback and report.

    SubmissionResult            one student's assignment
    └── NotebookResult          one notebook
        ├── CellRun             how each of the student's code cells ran
        └── CellResult          one autograded (or manually graded) cell
            └── Check           one hidden test: passed or not, and why

All of them are plain dataclasses with ``to_dict``/``from_dict`` so they can
cross a process boundary (a Dask worker) as JSON.
"""

from __future__ import annotations

import json
import copy
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path

RESULTS_FILE = "results.json"   # autograded/<student>/<assignment>/results.json


@dataclass
class Check:
    name: str
    passed: bool
    message: str = ""
    weight: float = 1.0
    mistake: str | None = None     # the known wrong route this failure was diagnosed as (its catalogue name)


@dataclass
class CellResult:
    grade_id: str
    points: float
    score: float | None            # None: needs a manual grade
    checks: list[Check] = field(default_factory=list)
    manual: bool = False
    by_hand: bool = False          # the score is the instructor's (a manual grade, or an override in formgrader)
    diagnosis: list[str] = field(default_factory=list)  # the mistake(s) the evidence of all checks points to
    answered: bool = True          # False: a free-text answer left as the stub

    def diagnose(self) -> None:
        """One diagnosis for the cell from its checks' named mistakes (empty when none was named)."""
        named = [c.mistake for c in self.checks if not c.passed and c.mistake]
        self.diagnosis = sorted(set(named), key=named.index)

    @property
    def passed(self) -> bool:
        return self.score is not None and self.score >= self.points


@dataclass
class CellRun:
    cell_id: str
    ok: bool
    error: str | None = None


@dataclass
class NotebookResult:
    name: str
    cells: list[CellResult] = field(default_factory=list)
    runs: list[CellRun] = field(default_factory=list)
    error: str | None = None        # the notebook could not be graded at all
    late_penalty: float | None = None   # points taken off for lateness (nbgrader's, from the gradebook)

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
class SubmissionResult:
    student: str
    assignment: str
    notebooks: list[NotebookResult] = field(default_factory=list)
    error: str | None = None        # why nothing could be graded (zero with a reason)
    timestamp: str | None = None
    seconds: float = 0.0
    student_seconds: float = 0.0    # of which the student's code ran (cells and graders' calls), per the worker
    fingerprint: str = ""           # hash of the submitted files: regrading unchanged work is a no-op
    notes: list[str] = field(default_factory=list)   # about the submission as a whole (e.g. its timestamp)

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
    def from_dict(cls, data: dict) -> "SubmissionResult":
        notebooks = []
        for nb in data.get("notebooks", []):
            cells = [CellResult(**{**c, "checks": [Check(**k) for k in c.get("checks", [])]})
                     for c in nb.get("cells", [])]
            runs = [CellRun(**r) for r in nb.get("runs", [])]
            notebooks.append(NotebookResult(nb["name"], cells, runs, nb.get("error"), nb.get("late_penalty")))
        rest = {k: v for k, v in data.items() if k != "notebooks"}
        return cls(notebooks=notebooks, **rest)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _plain(value):
    """dataclasses.asdict for these results: their fields hold plain values, lists and dataclasses."""
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None and is_dataclass(kind):
        names = _FIELDS[kind] = tuple(f.name for f in fields(kind))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if kind is list:
        return [_plain(v) for v in value]
    if kind in (str, int, float, bool) or value is None:
        return value
    return asdict(value) if is_dataclass(value) else copy.deepcopy(value)


def load(path: Path) -> SubmissionResult | None:
    """A stored result, or None when there is none or it cannot be read (half-written, another
    version's format): the caller grades again, or reports the submission as not graded."""
    try:
        return SubmissionResult.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
