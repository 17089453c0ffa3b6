"""Registering an assignment's notebooks and cells in the gradebook, as nbgrader's SaveCells does.

``generate`` records the assignment, each notebook (its kernelspec) and each
cell nbgrader tracks: grade cells (points, type), solution and task cells, and
the source of every graded, solution, task or locked cell. nbgrader's
``SaveCells`` preprocessor does it through nbgrader's API -- over a second of
importing SQLAlchemy, nbgrader and nbconvert, then a commit per cell.

For an SQLite gradebook this module does it with ``sqlite3``:

* a notebook the gradebook already holds exactly as it would be written is
  left alone (a ``generate`` run again, or for more students);
* a notebook it does not hold yet is inserted, row for row what SaveCells
  inserts (random ids, as nbgrader's); tests/release/test_registration.py is the oracle:
  after registering both shipped assignments, for several students' variants,
  the two gradebooks hold the same rows, value types included;
* anything else -- a notebook registered differently (SaveCells replaces it,
  or refuses when it has submissions), a cell value nbgrader would reject or
  convert, another database -- goes to nbgrader's SaveCells, the fallback.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing

from gradekit.course import Course
from gradekit.gradebook.sql_read import sqlite_path

CELL_TYPES = ("code", "markdown")  # what nbgrader's cell tables accept


def _meta(cell) -> dict:
    meta = cell.metadata.get("nbgrader") if "nbgrader" in cell.metadata else None
    return meta if isinstance(meta, dict) else {}


def wanted(name: str, nb) -> dict | None:
    """What SaveCells records for the notebook ``nb`` (its registration version), or None when
    a value is one nbgrader would convert or refuse (then nbgrader records it)."""
    from gradekit.release import preprocessors as strip

    grade: dict[str, tuple[float, str]] = {}
    task: dict[str, tuple[float, str]] = {}
    solution: list[str] = []
    source: dict[str, tuple[str, bool, str, str | None]] = {}
    for cell in nb.cells:
        meta = _meta(cell)
        if "nbgrader" not in cell.metadata:
            continue
        is_grade, is_solution, is_task = strip._grade(cell), strip._solution(cell), meta.get("task", False)
        is_locked = strip._locked(cell)
        if not (is_grade or is_solution or is_task or is_locked):
            continue
        gid = meta.get("grade_id")
        if (
            not isinstance(gid, str)
            or cell.cell_type not in CELL_TYPES
            or any(v not in (True, False) for v in (is_grade, is_solution, is_task, is_locked))
        ):
            return None
        if is_grade or is_task:
            try:
                points = float(meta["points"])
            except (KeyError, TypeError, ValueError):
                return None
            (grade if is_grade else task)[gid] = (points, cell.cell_type)
            if is_grade and is_task:
                return None
        if is_solution:
            solution.append(gid)
        checksum = meta.get("checksum")
        if not isinstance(checksum, (str, type(None))) or not isinstance(cell.source, str):
            return None
        source[gid] = (cell.cell_type, is_locked, cell.source, checksum)
    return {
        "name": name,
        "kernelspec": json.dumps(nb.metadata.get("kernelspec", {})),
        "grade": grade,
        "solution": sorted(set(solution)),
        "task": task,
        "source": source,
    }


def _held(db: sqlite3.Connection, assignment: str, name: str) -> dict | None:
    """The notebook as the gradebook holds it, in the shape of :func:`wanted`; None if absent."""
    row = db.execute(
        "SELECT n.id, n.kernelspec FROM notebook n JOIN assignment a ON n.assignment_id = a.id "
        "WHERE a.name = ? AND n.name = ?",
        (assignment, name),
    ).fetchone()
    if row is None:
        return None
    notebook_id, kernelspec = row

    def scored(table: str) -> dict:  # grade_cells or task_cells: name -> (max_score, cell_type)
        query = (
            f"SELECT b.name, c.max_score, c.cell_type FROM base_cell b JOIN {table} c ON c.id = b.id "
            "WHERE b.notebook_id = ?"
        )
        return {n: (s, t) for n, s, t in db.execute(query, (notebook_id,))}

    grade, task = scored("grade_cells"), scored("task_cells")
    solution = sorted(
        n
        for (n,) in db.execute(
            "SELECT b.name FROM base_cell b JOIN solution_cells s ON s.id = b.id WHERE b.notebook_id = ?",
            (notebook_id,),
        )
    )
    source = {
        n: (t, bool(lk), s, c)
        for n, t, lk, s, c in db.execute(
            "SELECT name, cell_type, locked, source, checksum FROM source_cell WHERE notebook_id = ?", (notebook_id,)
        )
    }
    return {
        "name": name,
        "kernelspec": kernelspec,
        "grade": grade,
        "solution": solution,
        "task": task,
        "source": source,
    }


def register(course: Course, assignment: str, notebooks: dict) -> list[str]:
    """Record ``assignment`` and its notebooks (name -> registration version) where sqlite3 can
    do it as SaveCells would; return the names of the notebooks left for nbgrader's SaveCells."""
    path = sqlite_path(course)
    if path is None:
        return list(notebooks)
    plans = {name: wanted(name, nb) for name, nb in notebooks.items()}
    left = [name for name, plan in plans.items() if plan is None]
    try:
        with closing(sqlite3.connect(str(path), timeout=30, isolation_level=None)) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                assignment_id = _assignment(db, assignment)
                if assignment_id is None:
                    db.execute("ROLLBACK")
                    return list(notebooks)
                for name, plan in plans.items():
                    if plan is None:
                        continue
                    held = _held(db, assignment, name)
                    if held == plan:
                        continue
                    if held is not None:
                        left.append(name)
                        continue
                    _insert(db, assignment_id, plan)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
    except sqlite3.Error:
        return list(notebooks)
    return left


def _assignment(db: sqlite3.Connection, assignment: str) -> str | None:
    """The assignment's id, added as nbgrader's update_or_create_assignment adds it (course
    ``default_course``, no due date); None when the gradebook lacks that course row."""
    row = db.execute("SELECT id FROM assignment WHERE name = ?", (assignment,)).fetchone()
    if row is not None:
        return row[0]
    if db.execute("SELECT 1 FROM course WHERE id = 'default_course'").fetchone() is None:
        return None
    new = uuid.uuid4().hex
    db.execute(
        "INSERT INTO assignment (id, name, duedate, course_id) VALUES (?, ?, NULL, 'default_course')", (new, assignment)
    )
    return new


def _insert(db: sqlite3.Connection, assignment_id: str, plan: dict) -> None:
    """The rows SaveCells inserts for a notebook the gradebook does not hold."""
    notebook_id = uuid.uuid4().hex
    db.execute(
        "INSERT INTO notebook (id, name, assignment_id, kernelspec) VALUES (?, ?, ?, ?)",
        (notebook_id, plan["name"], assignment_id, plan["kernelspec"]),
    )
    for kind, table, cells in (("GradeCell", "grade_cells", plan["grade"]), ("TaskCell", "task_cells", plan["task"])):
        for name, (points, cell_type) in cells.items():
            cell_id = uuid.uuid4().hex
            db.execute(
                "INSERT INTO base_cell (id, name, notebook_id, type) VALUES (?, ?, ?, ?)",
                (cell_id, name, notebook_id, kind),
            )
            db.execute(f"INSERT INTO {table} (id, max_score, cell_type) VALUES (?, ?, ?)", (cell_id, points, cell_type))
    for name in plan["solution"]:
        cell_id = uuid.uuid4().hex
        db.execute(
            "INSERT INTO base_cell (id, name, notebook_id, type) VALUES (?, ?, ?, 'SolutionCell')",
            (cell_id, name, notebook_id),
        )
        db.execute("INSERT INTO solution_cells (id) VALUES (?)", (cell_id,))
    for name, (cell_type, locked, source, checksum) in plan["source"].items():
        db.execute(
            "INSERT INTO source_cell (id, name, cell_type, locked, source, checksum, notebook_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (uuid.uuid4().hex, name, cell_type, 1 if locked else 0, source, checksum, notebook_id),
        )


def save_cells(course: Course, assignment: str, notebooks: dict) -> None:
    """nbgrader's own registration: update_or_create_assignment, then SaveCells per notebook."""
    from nbgrader.preprocessors import SaveCells

    from gradekit.gradebook.connect import open_gradebook

    with open_gradebook(course) as gb:
        gb.update_or_create_assignment(assignment)
    save = SaveCells()
    for name, nb in notebooks.items():
        resources = {"nbgrader": {"notebook": name, "assignment": assignment, "db_url": course.db_url}}
        save.preprocess(nb, resources)
