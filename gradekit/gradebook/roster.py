"""A roster CSV's students into the gradebook, as ``nbgrader db student import roster.csv`` puts them.

The CSV has nbgrader's columns: ``id`` (required), ``first_name``, ``last_name``, ``email``,
``lms_user_id``. A student already there is updated, never duplicated.
"""

from __future__ import annotations

import csv
from pathlib import Path

from gradekit.course import Course
from gradekit.errors import UsageError
from gradekit.gradebook.connect import open_gradebook
from gradekit.untrusted import require_id

COLUMNS = ("first_name", "last_name", "email", "lms_user_id")


def import_roster(course: Course, roster: Path) -> list[str]:
    """Add or update every student of ``roster``; return their ids, in the file's order."""
    with roster.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and "id" not in rows[0]:
        raise UsageError(f"{roster.name}: no id column (it has {', '.join(rows[0])})")
    for row in rows:
        require_id("student", row["id"])
    with open_gradebook(course) as gb:
        for row in rows:
            gb.update_or_create_student(row["id"], **{k: row[k] for k in COLUMNS if row.get(k)})
    return [row["id"] for row in rows]
