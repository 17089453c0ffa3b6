"""report.json and report.csv: the report's numbers for other tools.

``report.json`` is the whole report dict (see :mod:`.stats`), the numbers the
page shows. ``report.csv`` is its student table, one row per student: status,
lateness, total, each notebook, each exercise and the named mistakes, for a
spreadsheet.
"""

from __future__ import annotations

import csv
import io
import json

from gradekit.pages.look import points


def to_json(report: dict) -> str:
    # no indent: json's C encoder serves only compact output (indented, a 1,000-student report
    # takes seconds in the pure-Python one)
    return json.dumps(report, ensure_ascii=False, separators=(",", ":"))


def to_csv(report: dict, exercises: dict[str, str]) -> str:
    """The student table; ``exercises`` maps each exercise key to its column title."""
    notebooks = [nb["notebook"] for nb in report["scores"]["notebooks"]]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "student",
            "status",
            "reason",
            "late_seconds",
            "late_penalty",
            "total",
            "possible",
            *notebooks,
            *exercises.values(),
            "waiting_for_manual_grade",
            "named_mistakes",
        ]
    )
    for row in report["students"]:
        writer.writerow(
            [
                row["student"],
                row["status"],
                row["reason"],
                row["late_seconds"],
                _num(row["late_penalty"]),
                _num(row["total"]),
                _num(row["possible"]),
                *(_num(row["notebooks"].get(nb)) for nb in notebooks),
                *(_num(row["exercises"].get(key)) for key in exercises),
                row["waiting"],
                " | ".join(row["mistakes"]),
            ]
        )
    return out.getvalue()


def _num(value) -> str:
    return "" if value is None else points(value)
