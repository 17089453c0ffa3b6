"""``gradekit report``: read the class once, compute, plot, and write the report's three files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gradekit.course import Course


@dataclass
class Written:
    html: Path
    json: Path
    csv: Path
    report: dict
    missing_feedback: int  # graded students whose feedback pages are not written yet


def write_report(course: Course, assignment: str) -> Written:
    from gradekit.atomic import atomic_write
    from gradekit.errors import UsageError
    from gradekit.pages.report import data as data_mod
    from gradekit.pages.report import export, html, plots, stats

    data = data_mod.load(course, assignment)
    if not any(r.result is not None for r in data.students):
        raise UsageError(f"no graded submissions of {assignment}: run `gradekit autograde {assignment}` first")
    report = stats.build(data)
    figures = plots.all_plots(report)
    columns = {key: title for key, (title, _) in stats.exercise_columns(data).items()}
    out = data.report_dir()
    paths = Written(
        out / "index.html", out / "report.json", out / "report.csv", report, missing_feedback=_missing_feedback(data)
    )
    atomic_write(paths.json, export.to_json(report))
    atomic_write(paths.csv, export.to_csv(report, columns))
    atomic_write(paths.html, html.page(report, figures, columns))
    return paths


def _missing_feedback(data) -> int:
    missing = 0
    for row in data.students:
        if row.result is not None and row.result.notebooks:
            page = data.course.feedback_dir(row.student, data.assignment) / f"{row.result.notebooks[0].name}.html"
            missing += not page.is_file()
    return missing
