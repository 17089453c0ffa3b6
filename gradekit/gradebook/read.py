"""Who is in the class and what is registered: read with plain SQL, or through nbgrader's API.

Reads go through :mod:`gradekit.gradebook.sql_read` (a few ``sqlite3`` queries,
no nbgrader, no SQLAlchemy) where the gradebook is SQLite, and through
nbgrader's API otherwise.
"""

from __future__ import annotations

from gradekit.course import Course
from gradekit.errors import StudentError, UsageError
from gradekit.gradebook import sql_read
from gradekit.gradebook.connect import api, open_gradebook


def students(course: Course) -> list[str]:
    fast = sql_read.students(course)
    if fast is not None:
        return fast
    with open_gradebook(course) as gb:
        return sorted(s.id for s in gb.students)


def registered_assignments(course: Course) -> list[str]:
    """The assignments in the gradebook."""
    with open_gradebook(course) as gb:
        return sorted(a.name for a in gb.assignments)


def require_students(course: Course, wanted: list[str]) -> list[str]:
    known = set(students(course))
    for student in wanted:
        if student not in known:
            raise StudentError(
                f"student {student!r} is not in the gradebook (add with: nbgrader db student add {student})"
            )
    return wanted


def require_registered(course: Course, assignment: str) -> None:
    registered = sql_read.assignment_registered(course, assignment)
    if registered is None:
        with open_gradebook(course) as gb:
            try:
                gb.find_assignment(assignment)
                registered = True
            except api().MissingEntry:
                registered = False
    if not registered:
        raise UsageError(
            f"assignment {assignment!r} is not in the gradebook yet: run `gradekit generate {assignment}` first"
        )


def duedate(course: Course, assignment: str):
    """The assignment's due date (a UTC datetime), or None: none set, not registered, or no
    gradebook yet (nothing is created to find out)."""
    fast = sql_read.duedate(course, assignment)
    if fast is not None:
        return fast[0]
    if course.db_url.startswith("sqlite:///"):  # no such file: no gradebook yet
        return None
    with open_gradebook(course) as gb:
        try:
            return gb.find_assignment(assignment).duedate
        except api().MissingEntry:
            return None
