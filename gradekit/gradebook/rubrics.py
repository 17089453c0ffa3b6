"""What people decided while grading: rubrics, the items each answer got, the groups, the undo log.

One SQLite file per assignment, ``.gradekit/manual/<assignment>.sqlite`` in the course
directory: gradekit's own record of manual grading, beside nbgrader's gradebook, which holds
the resulting scores and comments (:mod:`gradekit.manual.marks` writes them). The grading page
changes it (:mod:`gradekit.manual.actions`); :mod:`gradekit.gradebook.marks` reads the items each
student got into their result (:class:`gradekit.results.RubricItem`), where the feedback pages
and the class report find them. Tables::

    question  cell, notebook, kind, grade_cell, comment_cell, points, mode
    item      id, cell, position, points, text, deleted        a rubric item: points and one sentence
    item_text item, language, text                             its translations
    answer    cell, student, grp, position, graded             the group an answer sits in (as a person left
                                                               it), and whether a person has graded it
    grp       cell, id, label, kind                            a group's label ("copies", a mistake's name)
    applied   cell, student, item                              the items an answer got
    action    id, grader, session, at, what, undo, undone      every change, with what undoes it

A rubric's *mode* says how items count: ``subtract`` from full marks, ``add`` from zero,
or ``adjust`` the autograder's score (numbers: a person's partial credit for a mistake).
The score is clamped to [0, points].

Every change is one transaction begun with ``BEGIN IMMEDIATE``: two graders (two pages, or
two tabs of one) are serialised, and each change's scores are computed from the state it
leaves, so neither loses the other's grade. The caller writes the gradebook inside the same
transaction (:meth:`Store.change`), so the gradebook never holds a score the store does not.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gradekit.course import Course
from gradekit.errors import UsageError
from gradekit.results import RubricItem

SUBTRACT, ADD, ADJUST = "subtract", "add", "adjust"
MODES = (SUBTRACT, ADD, ADJUST)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS question (cell TEXT PRIMARY KEY, notebook TEXT, kind TEXT, grade_cell TEXT,
    comment_cell TEXT, points REAL, mode TEXT);
CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY AUTOINCREMENT, cell TEXT, position INTEGER, points REAL,
    text TEXT, deleted INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS item_text (item INTEGER, language TEXT, text TEXT, PRIMARY KEY (item, language));
CREATE TABLE IF NOT EXISTS answer (cell TEXT, student TEXT, grp INTEGER, position INTEGER, graded INTEGER DEFAULT 0,
    PRIMARY KEY (cell, student));
CREATE TABLE IF NOT EXISTS grp (cell TEXT, id INTEGER, label TEXT, kind TEXT, PRIMARY KEY (cell, id));
CREATE TABLE IF NOT EXISTS applied (cell TEXT, student TEXT, item INTEGER, PRIMARY KEY (cell, student, item));
CREATE TABLE IF NOT EXISTS action (id INTEGER PRIMARY KEY AUTOINCREMENT, grader TEXT, session TEXT, at TEXT,
    what TEXT, undo TEXT, undone INTEGER DEFAULT 0);
CREATE INDEX IF NOT EXISTS applied_item ON applied (item);
CREATE INDEX IF NOT EXISTS answer_grp ON answer (cell, grp);
"""


def path_of(course: Course, assignment: str) -> Path:
    return course.root / ".gradekit" / "manual" / f"{assignment}.sqlite"


@dataclass
class Item:
    id: int
    cell: str
    position: int
    points: float
    text: str
    texts: dict[str, str] = field(default_factory=dict)  # language -> the sentence in it

    def sentence(self, language: str) -> str:
        return self.texts.get(language) or self.text

    def to_dict(self) -> dict:
        return {"id": self.id, "position": self.position, "points": self.points, "text": self.text, "texts": self.texts}


def score(mode: str, possible: float, points: Iterable[float], auto: float | None) -> float | None:
    """An answer's score from the points of its items (see the module's docstring). ``adjust`` with no
    autograder's score counts from zero."""
    total = sum(points)
    if mode == SUBTRACT:
        value = possible - total
    elif mode == ADD:
        value = total
    else:
        value = (auto or 0.0) + total
    return min(max(value, 0.0), possible)


def counted(item: Item, mode: str) -> RubricItem:
    """An item as it counts in a result: its points added to the score, or taken off (negative) when
    the rubric subtracts from full marks (-0.0 for an item worth nothing there)."""
    return RubricItem(item.text, -item.points if mode == SUBTRACT else item.points)


@dataclass
class Rubric:
    """One question's rubric as the class report counts it: what it grades and every item, in order."""

    cell: str  # the question's cell (the answer)
    notebook: str
    grade_cell: str  # the cell whose score it sets
    items: list[RubricItem]


class Store:
    """One assignment's grading decisions. A connection per thread (``sqlite3`` objects are not shared)."""

    def __init__(self, course: Course, assignment: str, path: Path | None = None):
        self.course, self.assignment = course, assignment
        self.path = path or path_of(course, assignment)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), timeout=60, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA busy_timeout=60000")
        return db

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        db = self._connect()
        try:
            yield db
        finally:
            db.close()

    @contextmanager
    def change(self) -> Iterator[sqlite3.Connection]:
        """One transaction that no other grader interleaves with (``BEGIN IMMEDIATE``): commit on success."""
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    # ------------------------------------------------------------------ reading

    def question_row(self, db: sqlite3.Connection, cell: str) -> dict | None:
        row = db.execute(
            "SELECT cell, notebook, kind, grade_cell, comment_cell, points, mode FROM question WHERE cell = ?", (cell,)
        ).fetchone()
        if row is None:
            return None
        return dict(zip(("cell", "notebook", "kind", "grade_cell", "comment_cell", "points", "mode"), row, strict=True))

    def items(self, db: sqlite3.Connection, cell: str, deleted: bool = False) -> list[Item]:
        rows = db.execute(
            "SELECT id, cell, position, points, text FROM item WHERE cell = ?"
            + ("" if deleted else " AND deleted = 0")
            + " ORDER BY position, id",
            (cell,),
        ).fetchall()
        items = [Item(*row) for row in rows]
        by_id = {i.id: i for i in items}
        if by_id:
            marks = ",".join("?" * len(by_id))
            for item_id, language, text in db.execute(
                f"SELECT item, language, text FROM item_text WHERE item IN ({marks})", list(by_id)
            ):
                if text:
                    by_id[item_id].texts[language] = text
        return items

    def applied(self, db: sqlite3.Connection, cell: str, students: Iterable[str] | None = None) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        rows = db.execute(
            "SELECT a.student, a.item FROM applied a JOIN item i ON i.id = a.item WHERE a.cell = ? AND i.deleted = 0",
            (cell,),
        )
        wanted = set(students) if students is not None else None
        for student, item in rows:
            if wanted is None or student in wanted:
                out.setdefault(student, set()).add(item)
        return out

    def graded(self, db: sqlite3.Connection, cell: str) -> set[str]:
        return {s for (s,) in db.execute("SELECT student FROM answer WHERE cell = ? AND graded = 1", (cell,))}

    def groups(self, db: sqlite3.Connection, cell: str) -> dict[int, list[str]]:
        """group id -> its students, in their order (the typical answer first)."""
        out: dict[int, list[str]] = {}
        for grp, student in db.execute(
            "SELECT grp, student FROM answer WHERE cell = ? ORDER BY grp, position, student", (cell,)
        ):
            out.setdefault(grp, []).append(student)
        return out

    def group_info(self, db: sqlite3.Connection, cell: str) -> dict[int, tuple[str, str]]:
        return {
            gid: (label or "", kind or "")
            for gid, label, kind in db.execute("SELECT id, label, kind FROM grp WHERE cell = ?", (cell,))
        }

    def given(self, students: Iterable[str] | None = None) -> dict[str, dict[tuple[str, str], list[tuple[Item, str]]]]:
        """student -> {(notebook, grade cell): [(item, the rubric's mode), ...]}: the items each answer a
        person graded got, in the rubric's order (an empty list: graded, no item), for ``students`` (all)."""
        wanted = set(students) if students is not None else None
        out: dict[str, dict[tuple[str, str], list[tuple[Item, str]]]] = {}
        with self.reading() as db:
            questions = {
                row[0]: row for row in db.execute("SELECT cell, notebook, grade_cell, mode FROM question").fetchall()
            }
            items = {i.id: i for cell in questions for i in self.items(db, cell)}
            got: dict[tuple[str, str], set[int]] = {}
            for cell, student, item in db.execute("SELECT cell, student, item FROM applied"):
                got.setdefault((cell, student), set()).add(item)
            for cell, student in db.execute("SELECT cell, student FROM answer WHERE graded = 1").fetchall():
                if cell not in questions or (wanted is not None and student not in wanted):
                    continue
                _cell, notebook, grade_cell, mode = questions[cell]
                mine = [items[i] for i in got.get((cell, student), ()) if i in items]
                out.setdefault(student, {})[(notebook, grade_cell)] = [
                    (i, mode) for i in sorted(mine, key=lambda i: (i.position, i.id))
                ]
        return out

    def rubrics(self) -> list[Rubric]:
        """Every question's rubric, in the order the questions were first graded (the class report's)."""
        with self.reading() as db:
            rows = db.execute("SELECT cell, notebook, grade_cell, mode FROM question ORDER BY rowid").fetchall()
            return [
                Rubric(cell, notebook, grade_cell, [counted(i, mode) for i in self.items(db, cell)])
                for cell, notebook, grade_cell, mode in rows
            ]

    # ------------------------------------------------------------------ writing helpers (inside change())

    def ensure_question(self, db: sqlite3.Connection, q, mode: str | None = None) -> dict:
        row = self.question_row(db, q.cell)
        if row is None:
            mode = mode or (ADJUST if q.kind == "numbers" else SUBTRACT)
            db.execute(
                "INSERT INTO question VALUES (?, ?, ?, ?, ?, ?, ?)",
                (q.cell, q.notebook, q.kind, q.grade_cell, q.comment_cell, q.points, mode),
            )
            row = self.question_row(db, q.cell)
        assert row is not None
        return row

    def log(self, db: sqlite3.Connection, grader: str, session: str, what: str, undo: dict) -> int:
        at = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
        cur = db.execute(
            "INSERT INTO action (grader, session, at, what, undo) VALUES (?, ?, ?, ?, ?)",
            (grader, session, at, what, json.dumps(undo, ensure_ascii=False)),
        )
        return int(cur.lastrowid or 0)

    def last_action(self, db: sqlite3.Connection, session: str) -> tuple[int, str, dict] | None:
        row = db.execute(
            "SELECT id, what, undo FROM action WHERE session = ? AND undone = 0 AND what != 'undo' "
            "ORDER BY id DESC LIMIT 1",
            (session,),
        ).fetchone()
        return (row[0], row[1], json.loads(row[2])) if row else None


def require_mode(mode: str) -> str:
    if mode not in MODES:
        raise UsageError(f"a rubric's mode is one of {', '.join(MODES)}, not {mode!r}")
    return mode
