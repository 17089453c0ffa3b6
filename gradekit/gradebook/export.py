"""``gradekit export``: the gradebook's totals in the grade-import CSV each LMS documents.

The totals are ``nbgrader export``'s: each assignment's score as the gradebook holds it
(a person's manual grades and overrides included) less nbgrader's late penalty, 0 for a
student with no submission. Rows are the gradebook's students; the LMS's identifiers come
from the gradebook (``lms_user_id``, ``email``) or a ``--roster`` CSV with an ``id``
column and any of ``lms_user_id``, ``sis_user_id``, ``sis_login_id``, ``email``, ``section``,
``first_name``, ``last_name``.

**Canvas** (Gradebook → Import): the columns ``Student``, ``ID``, ``SIS User ID``,
``SIS Login ID``, ``Section``, then one column per assignment; the second row
``Points Possible`` gives each assignment's maximum. Canvas matches a student by ``ID``
(its user id: the gradebook's ``lms_user_id``) or by the SIS columns, and an assignment
column by its name (``Name (canvas id)`` when the roster's ``canvas_assignment_ids`` says it).

**Moodle** (Grade administration → Import → CSV file): a header row, one row per
student, an identifier column to map from (``Email address`` or ``ID number``), one grade
column per assignment. The columns are those of Moodle's own plain-text export (which
Moodle imports back): ``First name``, ``Last name``, ``ID number``, ``Institution``,
``Department``, ``Email address``, then ``<assignment> (Real)`` for each assignment, then
``Last downloaded from this course``.

``tests/gradebook/test_export.py`` holds both layouts to these documented columns.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

from gradekit.course import Course
from gradekit.errors import LMSError, UsageError
from gradekit.gradebook.connect import api, open_gradebook

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS = "    Points Possible"
MOODLE_COLUMNS = ["First name", "Last name", "ID number", "Institution", "Department", "Email address"]
MOODLE_LAST = "Last downloaded from this course"


def totals(course: Course, assignments: list[str]) -> tuple[list[dict], list[tuple[str, float]]]:
    """(one dict per student: their gradebook fields and {assignment: total}, [(assignment, max score)])."""
    orm = api()
    rows = []
    with open_gradebook(course) as gb:
        known = [a for a in gb.assignments]
        names = [a.name for a in known]
        for name in assignments:
            if name not in names:
                raise UsageError(f"assignment {name!r} is not in the gradebook (it has: {', '.join(names) or 'none'})")
        chosen = [a for a in known if not assignments or a.name in assignments]
        maxima = [(a.name, float(a.max_score or 0.0)) for a in chosen]
        for student in gb.students:
            row = {
                "id": student.id,
                "first_name": student.first_name or "",
                "last_name": student.last_name or "",
                "email": student.email or "",
                "lms_user_id": student.lms_user_id or "",
                "scores": {},
            }
            for a in chosen:
                try:
                    sub = gb.find_submission(a.name, student.id)
                except orm.MissingEntry:
                    row["scores"][a.name] = 0.0
                    continue
                row["scores"][a.name] = max(0.0, float(sub.score or 0.0) - float(sub.late_submission_penalty or 0.0))
            rows.append(row)
    return rows, maxima


def read_roster(path: Path) -> dict[str, dict]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise LMSError(f"cannot read the roster {path}: {exc.strerror}") from None
    reader = csv.DictReader(io.StringIO(text))
    if "id" not in [c.strip() for c in reader.fieldnames or []]:
        raise LMSError(f"the roster {path} has no 'id' column")
    return {
        r["id"].strip(): {(k or "").strip(): (v or "").strip() for k, v in r.items()} for r in reader if r.get("id")
    }


def _number(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def export_csv(course: Course, lms: str, assignments: list[str], roster: Path | None = None) -> tuple[str, int]:
    """The CSV text and its number of students."""
    rows, maxima = totals(course, assignments)
    extra = read_roster(roster) if roster is not None else {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if lms == "canvas":
        ids = {}
        for info in extra.values():
            for pair in (info.get("canvas_assignment_ids") or "").split(";"):
                if "=" in pair:
                    ids[pair.split("=", 1)[0].strip()] = pair.split("=", 1)[1].strip()
        writer.writerow(CANVAS_COLUMNS + [f"{n} ({ids[n]})" if n in ids else n for n, _ in maxima])
        writer.writerow([CANVAS_POINTS, "", "", "", ""] + [_number(m) for _, m in maxima])
        for row in rows:
            info = extra.get(row["id"], {})
            name = " ".join(p for p in (info.get("last_name") or row["last_name"],) if p)
            first = info.get("first_name") or row["first_name"]
            student = f"{name}, {first}" if name and first else (name or first or row["id"])
            writer.writerow(
                [
                    student,
                    info.get("lms_user_id") or row["lms_user_id"],
                    info.get("sis_user_id", row["id"]),
                    info.get("sis_login_id", ""),
                    info.get("section", ""),
                ]
                + [_number(row["scores"][n]) for n, _ in maxima]
            )
    elif lms == "moodle":
        writer.writerow(MOODLE_COLUMNS + [f"{n} (Real)" for n, _ in maxima] + [MOODLE_LAST])
        stamp = str(int(dt.datetime.now(dt.UTC).timestamp()))
        for row in rows:
            info = extra.get(row["id"], {})
            writer.writerow(
                [
                    info.get("first_name") or row["first_name"],
                    info.get("last_name") or row["last_name"],
                    info.get("id_number", row["id"]),
                    info.get("institution", ""),
                    info.get("department", ""),
                    info.get("email") or row["email"],
                ]
                + [_number(row["scores"][n]) for n, _ in maxima]
                + [stamp]
            )
    else:
        raise UsageError(f"--format must be canvas or moodle, not {lms!r}")
    return out.getvalue(), len(rows)
