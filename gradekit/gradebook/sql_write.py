"""Writing one result into an SQLite gradebook with sqlite3, as :func:`gradekit.gradebook.write.record` does.

:func:`gradekit.gradebook.write.record` writes a result through nbgrader's API:
``update_or_create_submission`` (which mirrors the assignment's structure: a
submitted notebook per notebook, a grade per grade or task cell, a comment
per solution or task cell), the autograder's scores in one statement, and
nbgrader's late penalty. Importing nbgrader's API and SQLAlchemy costs the
coordinating process most of a second, and each submission a dozen ORM
round trips. For an SQLite gradebook, :func:`record` writes the same rows
with plain SQL, in one transaction per submission.

It declines -- returns False, having written nothing -- whenever the write
is not one it copies exactly: another database, a student or assignment the
gradebook does not hold (nbgrader raises its own error), a submission that
is late (the late-penalty plugin is nbgrader's and the course's), a due date
or extension it cannot read. Then nbgrader's API writes it.
tests/gradebook/test_sql_write.py is the oracle: two gradebooks, one written by
nbgrader's API and one by this module, hold the same rows (ids aside, which
both draw at random) after the same results of both shipped assignments --
first gradings, regradings, manual grades kept, submissions without notebooks.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import uuid
from contextlib import closing

from gradekit.course import Course
from gradekit.gradebook.sql_read import sqlite_path
from gradekit.results import SubmissionResult, grade_writes
from gradekit.untrusted import timestamp_value

_EPOCH = dt.datetime(1970, 1, 1)


class Decline(Exception):
    """Not a write this module copies exactly: leave it to nbgrader."""


def record(course: Course, result: SubmissionResult) -> bool:
    """Write ``result``'s scores as nbgrader's API would; False (nothing written) when declined."""
    path = sqlite_path(course)
    if path is None:
        return False
    try:
        with closing(sqlite3.connect(str(path), timeout=30, isolation_level=None)) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                _record(db, result)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
    except (Decline, sqlite3.Error):
        return False
    return True  # on time: no late penalty (a late submission is declined: nbgrader's to assign)


def _stored(when: dt.datetime) -> str:
    """A datetime as SQLAlchemy's DateTime stores it in SQLite."""
    return when.strftime("%Y-%m-%d %H:%M:%S.%f")


def _read(value) -> dt.datetime | None:
    if value is None:
        return None
    try:
        return dt.datetime.fromisoformat(str(value))
    except ValueError:
        raise Decline("a date the gradebook holds that this module cannot read") from None


def _record(db: sqlite3.Connection, result: SubmissionResult) -> None:
    row = db.execute("SELECT id, duedate FROM assignment WHERE name = ?", (result.assignment,)).fetchone()
    if row is None or db.execute("SELECT 1 FROM student WHERE id = ?", (result.student,)).fetchone() is None:
        raise Decline("nbgrader reports a missing assignment or student")
    assignment_id, duedate = row[0], _read(row[1])
    timestamp = timestamp_value(result.timestamp)  # stored results are the student's too: re-checked
    found = db.execute(
        "SELECT id, timestamp, extension FROM submitted_assignment WHERE assignment_id = ? AND student_id = ?",
        (assignment_id, result.student),
    ).fetchone()
    if found is None:
        submission_id, extension = _add_submission(db, assignment_id, result.student, timestamp), None
    else:
        submission_id, old_timestamp, extension = found[0], _read(found[1]), _read(found[2])
        if timestamp is not None:
            db.execute(
                "UPDATE submitted_assignment SET timestamp = ? WHERE id = ?", (_stored(timestamp), submission_id)
            )
        else:
            timestamp = old_timestamp
    if _seconds_late(timestamp, duedate, extension) > 0:
        raise Decline("a late submission: nbgrader's late-penalty plugin decides")
    grades = {
        (notebook, cell): (grade_id, manual)
        for notebook, cell, grade_id, manual in db.execute(
            "SELECT n.name, b.name, g.id, g.manual_score FROM grade g "
            "JOIN base_cell b ON g.cell_id = b.id JOIN notebook n ON b.notebook_id = n.id "
            "JOIN submitted_notebook sn ON g.notebook_id = sn.id WHERE sn.assignment_id = ?",
            (submission_id,),
        )
    }
    updates = [
        (None if by_hand else _score(auto), int(needs), grade_id)
        for grade_id, auto, needs, by_hand in grade_writes(result, grades)
    ]
    db.executemany("UPDATE grade SET auto_score = ?, needs_manual_grade = ? WHERE id = ?", updates)
    db.execute("UPDATE submitted_notebook SET late_submission_penalty = NULL WHERE assignment_id = ?", (submission_id,))


def _score(score):
    if score is None or isinstance(score, bool) or not isinstance(score, (int, float)):
        raise Decline("a score SQLAlchemy would convert or refuse")
    return float(score)


def _seconds_late(timestamp, duedate, extension) -> float:
    """nbgrader's SubmittedAssignment.total_seconds_late (an extension is stored as 1970-01-01 + it)."""
    if extension is not None:
        if duedate is None:
            raise Decline("an extension without a due date (nbgrader raises)")
        duedate = duedate + (extension - _EPOCH)
    if timestamp is None or duedate is None:
        return 0
    return max(0, (timestamp - duedate).total_seconds())


def _add_submission(db: sqlite3.Connection, assignment_id: str, student: str, timestamp) -> str:
    """The rows nbgrader's Gradebook.add_submission inserts: the submission, then for each of the
    assignment's notebooks a submitted notebook with a grade per grade or task cell and a comment
    per solution or task cell (no scores, every grade waiting for one, nothing flagged)."""
    submission_id = uuid.uuid4().hex
    db.execute(
        "INSERT INTO submitted_assignment (id, assignment_id, student_id, timestamp, extension) "
        "VALUES (?, ?, ?, ?, NULL)",
        (submission_id, assignment_id, student, _stored(timestamp) if timestamp is not None else None),
    )
    for (notebook_id,) in db.execute("SELECT id FROM notebook WHERE assignment_id = ?", (assignment_id,)).fetchall():
        submitted = uuid.uuid4().hex
        db.execute(
            "INSERT INTO submitted_notebook (id, assignment_id, notebook_id, flagged, late_submission_penalty) "
            "VALUES (?, ?, ?, 0, NULL)",
            (submitted, submission_id, notebook_id),
        )
        cells = db.execute("SELECT id, type FROM base_cell WHERE notebook_id = ?", (notebook_id,)).fetchall()
        for cell_id, kind in cells:
            if kind not in ("GradeCell", "SolutionCell", "TaskCell"):
                raise Decline(f"a cell of a kind nbgrader does not mirror ({kind})")
            if kind in ("GradeCell", "TaskCell"):
                db.execute(
                    "INSERT INTO grade (id, notebook_id, cell_id, auto_score, manual_score, extra_credit, "
                    "needs_manual_grade) VALUES (?, ?, ?, NULL, NULL, NULL, 1)",
                    (uuid.uuid4().hex, submitted, cell_id),
                )
            if kind in ("SolutionCell", "TaskCell"):
                db.execute(
                    "INSERT INTO comment (id, notebook_id, cell_id, auto_comment, manual_comment) "
                    "VALUES (?, ?, ?, NULL, NULL)",
                    (uuid.uuid4().hex, submitted, cell_id),
                )
    return submission_id
