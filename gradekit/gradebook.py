"""nbgrader's Gradebook: students, the assignment's structure, and the grades.

The gradebook is nbgrader's own database (``db_url`` in nbgrader_config.py,
SQLite by default), written through nbgrader's own API, so ``nbgrader export``,
``nbgrader db student list`` and formgrader read what gradekit writes. Only
the coordinating process writes to it, one submission per transaction.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import parse_utc

from .course import Course
from .errors import CourseError, StudentError
from .results import SubmissionResult


def open_gradebook(course: Course) -> Gradebook:
    """nbgrader's Gradebook for this course.

    nbgrader runs the ``alembic`` command to set up a new database; put this
    Python's scripts first on PATH so that it is found when gradekit was
    started without the virtualenv activated.
    """
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
    return Gradebook(course.db_url)


def students(course: Course) -> list[str]:
    with open_gradebook(course) as gb:
        return sorted(s.id for s in gb.students)


def check_students(course: Course, wanted: list[str]) -> list[str]:
    known = set(students(course))
    for student in wanted:
        if student not in known:
            raise StudentError(f"student {student!r} is not in the gradebook "
                               f"(add with: nbgrader db student add {student})")
    return wanted


def check_assignment_registered(course: Course, assignment: str) -> None:
    with open_gradebook(course) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise CourseError(f"assignment {assignment!r} is not in the gradebook yet: "
                              f"run `gradekit generate {assignment}` first") from None


def record(gb: Gradebook, result: SubmissionResult) -> None:
    """Write one submission's scores in one transaction."""
    db = gb.db
    try:
        with warnings.catch_warnings():
            # nbgrader's own update_or_create_submission trips SQLAlchemy autoflush warnings
            warnings.simplefilter("ignore")
            _record(gb, result)
        db.commit()
    except Exception:
        db.rollback()
        raise


def _record(gb: Gradebook, result: SubmissionResult) -> None:
    timestamp = parse_utc(result.timestamp) if result.timestamp else None
    kwargs = {"timestamp": timestamp} if timestamp else {}
    gb.update_or_create_submission(result.assignment, result.student, **kwargs)
    for nb in result.notebooks:
        for cell in nb.cells:
            try:
                grade = gb.find_grade(cell.grade_id, nb.name, result.assignment, result.student)
            except MissingEntry:
                continue
            if cell.manual:
                grade.auto_score = None
                grade.needs_manual_grade = grade.manual_score is None
            else:
                grade.auto_score = cell.score
                grade.needs_manual_grade = False
