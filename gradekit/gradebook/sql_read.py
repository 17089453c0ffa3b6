"""What the gradebook already holds, read with plain SQL: no nbgrader, no SQLAlchemy.

Reading the class list, whether an assignment is registered, and the grades
already recorded does not need nbgrader's ORM (whose import alone costs more
than a second). For an SQLite gradebook these are a few ``sqlite3`` queries on
nbgrader's own tables; for any other database every function here returns
None and the caller asks nbgrader (:mod:`gradekit.gradebook.write`).

The grades read here let a rerun skip writing what the gradebook already
says (see :class:`gradekit.gradebook.write.Recorder`).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from gradekit.course import Course


def sqlite_path(course: Course) -> Path | None:
    url = course.db_url
    if not url.startswith("sqlite:///"):
        return None
    path = Path(url[len("sqlite:///") :])
    return path if path.is_file() else None


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)


def students(course: Course) -> list[str] | None:
    path = sqlite_path(course)
    if path is None:
        return None
    try:
        with closing(_connect(path)) as db:
            return sorted(row[0] for row in db.execute("SELECT id FROM student"))
    except sqlite3.Error:
        return None


def assignment_registered(course: Course, assignment: str) -> bool | None:
    path = sqlite_path(course)
    if path is None:
        return None
    try:
        with closing(_connect(path)) as db:
            return db.execute("SELECT 1 FROM assignment WHERE name = ?", (assignment,)).fetchone() is not None
    except sqlite3.Error:
        return None


@dataclass
class Recorded:
    """One student's submission of an assignment as the gradebook holds it."""

    timestamp: dt.datetime | None
    due: dt.datetime | None  # the due date plus the student's extension
    grades: dict[tuple[str, str], tuple[float | None, float | None, bool]] = field(default_factory=dict)
    penalties: dict[str, float | None] = field(default_factory=dict)  # notebook -> late penalty

    @property
    def on_time(self) -> bool:
        return self.due is None or self.timestamp is None or self.timestamp <= self.due


def recorded(course: Course, assignment: str) -> dict[str, Recorded] | None:
    """Every recorded submission of ``assignment``: (notebook, cell) -> (auto, manual, needs manual)."""
    path = sqlite_path(course)
    if path is None:
        return None
    try:
        with closing(_connect(path)) as db:
            subs = db.execute(
                "SELECT sa.id, sa.student_id, sa.timestamp, sa.extension, a.duedate FROM submitted_assignment sa "
                "JOIN assignment a ON sa.assignment_id = a.id WHERE a.name = ?",
                (assignment,),
            ).fetchall()
            out: dict[str, Recorded] = {}
            by_id = {}
            for sid, student, timestamp, extension, duedate in subs:
                due = _when(duedate)
                if due is not None and extension:
                    due = (
                        due + (cast(dt.datetime, _when(extension)) - dt.datetime(1970, 1, 1))
                        if _when(extension)
                        else due
                    )
                out[student] = by_id[sid] = Recorded(_when(timestamp), due)
            rows = db.execute(
                "SELECT sn.assignment_id, n.name, c.name, g.auto_score, g.manual_score, g.needs_manual_grade, "
                "sn.late_submission_penalty FROM grade g "
                "JOIN submitted_notebook sn ON g.notebook_id = sn.id "
                "JOIN notebook n ON sn.notebook_id = n.id "
                "JOIN base_cell c ON g.cell_id = c.id "
                "JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
                "JOIN assignment a ON sa.assignment_id = a.id WHERE a.name = ?",
                (assignment,),
            ).fetchall()
            for sid, notebook, cell, auto, manual, needs, penalty in rows:
                rec = by_id.get(sid)
                if rec is not None:
                    rec.grades[(notebook, cell)] = (auto, manual, bool(needs))
                    rec.penalties[notebook] = penalty
            return out
    except sqlite3.Error:
        return None


def duedate(course: Course, assignment: str) -> tuple[dt.datetime | None] | None:
    """``(the assignment's due date,)`` -- ``(None,)`` when it has none or is not registered --
    or None when this is not an SQLite gradebook that can be read."""
    path = sqlite_path(course)
    if path is None:
        return None
    try:
        with closing(_connect(path)) as db:
            row = db.execute("SELECT duedate FROM assignment WHERE name = ?", (assignment,)).fetchone()
    except sqlite3.Error:
        return None
    return (_when(row[0]) if row else None,)


def _when(value) -> dt.datetime | None:
    if not value:
        return None
    try:
        return dt.datetime.fromisoformat(str(value))
    except ValueError:
        return None
