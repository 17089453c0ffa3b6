"""gradekit.gradebook.export: the gradebook's totals in each LMS's documented grade-import layout, on a
synthetic class (tests/manual_class.py), and ``gradekit export`` writing the file."""

from __future__ import annotations

import csv
import io

import pytest

from manual_class import build

pytestmark = pytest.mark.e2e  # a class in the gradebook: a few seconds

CLASS = 12


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    course, kinds = build(tmp_path_factory.mktemp("export") / "course", CLASS, seed=2)
    return course, kinds


def test_the_canvas_export_has_canvas_documented_columns(synthetic):
    from gradekit.gradebook.export import CANVAS_COLUMNS, export_csv

    course, _ = synthetic
    text, count = export_csv(course.course, "canvas", ["self_attention"])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == CANVAS_COLUMNS + ["self_attention"]
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[1][0].strip() == "Points Possible" and float(rows[1][5]) > 0
    assert len(rows) == 2 + count == 2 + CLASS
    totals = _totals(course)
    assert {r[2]: float(r[5]) for r in rows[2:]} == pytest.approx(totals)
    assert text.endswith("\r\n")


def test_the_moodle_export_has_moodle_documented_columns(synthetic):
    from gradekit.gradebook.export import export_csv

    course, _ = synthetic
    text, count = export_csv(course.course, "moodle", ["self_attention"])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["First name", "Last name", "ID number", "Institution", "Department", "Email address",
                       "self_attention (Real)", "Last downloaded from this course"]
    assert len(rows) == 1 + count
    assert {r[2]: float(r[6]) for r in rows[1:]} == pytest.approx(_totals(course))


def _totals(course) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        out = {}
        for s in gb.students:
            sub = gb.find_submission("self_attention", s.id)
            out[s.id] = max(0.0, sub.score - (sub.late_submission_penalty or 0.0))
        return out


def test_gradekit_export_writes_the_file(synthetic, tmp_path):
    course, _ = synthetic
    out = tmp_path / "canvas.csv"
    assert course.cli("export", "--format", "canvas", "--out", str(out)) == 0
    assert out.read_text().startswith("Student,ID,SIS User ID,SIS Login ID,Section,")
    assert course.cli("export", "--format", "moodle", "--assignment", "nope", "--out", str(out)) == 2
