"""gradekit.release.registration against nbgrader's SaveCells: the oracle.

Two gradebooks register the same assignments, one with nbgrader's own
SaveCells, one with gradekit.release.registration's sqlite3 rows; afterwards they hold
the same rows (ids aside, which both draw at random), with the same SQLite
value types. What registry does not do as SaveCells would goes to SaveCells.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing

import pytest

from conftest import REPO, _empty_gradebook
from gradekit.course import Course
from gradekit.release import registration as registry
from gradekit.release.stripper import Stripper
from gradekit.release.generate import register
from gradekit.release.registration import save_cells
from gradekit.authoring.template import AssignmentSource
from gradekit.authoring.variant import build_variant

ASSIGNMENTS = ("self_attention", "multi_head_attention", "long_context")
TABLES = ("assignment", "notebook", "base_cell", "grade_cells", "solution_cells", "task_cells", "source_cell")


def _course(root) -> Course:
    root.mkdir()
    shutil.copy(REPO / "nbgrader_config.py", root)
    shutil.copytree(REPO / "source", root / "source", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(_empty_gradebook(), root / "gradebook.db")
    return Course.load(root)


def _versions(course: Course, assignment: str, student: str) -> dict:
    variant = build_variant(course, AssignmentSource.load(course, assignment), student, b"oracle-secret")
    stripper = Stripper()
    return {name: stripper.registration_version(nb) for name, nb in variant.notebooks.items()}


def dump(course: Course) -> dict:
    """Every registration table's rows, ids replaced by what they name, with each value's SQLite type."""
    with closing(sqlite3.connect(course.db_url[len("sqlite:///"):])) as db:
        names = {}
        for aid, name in db.execute("SELECT id, name FROM assignment"):
            names[aid] = f"assignment {name}"
        for nid, name, aid in db.execute("SELECT id, name, assignment_id FROM notebook"):
            names[nid] = f"{names[aid]}/{name}"
        for cid, name, nid, kind in db.execute("SELECT id, name, notebook_id, type FROM base_cell"):
            names[cid] = f"{names[nid]}/{name} ({kind})"
        for sid, name, nid in db.execute("SELECT id, name, notebook_id FROM source_cell"):
            names[sid] = f"{names[nid]}/{name} (source)"
        out = {}
        for table in TABLES:
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            select = ", ".join(f"{c}, typeof({c})" for c in columns)
            rows = []
            for row in db.execute(f"SELECT {select} FROM {table}"):
                values = [names.get(v, v) for v in row]
                rows.append(tuple(values))
            out[table] = sorted(rows, key=repr)
        return out


@pytest.fixture()
def two(tmp_path):
    return _course(tmp_path / "nbgrader"), _course(tmp_path / "gradekit")


@pytest.mark.parametrize("student", ["alice", "s017", "s123"])
def test_registering_writes_what_savecells_writes(two, student):
    theirs, ours = two
    for assignment in ASSIGNMENTS:
        save_cells(theirs, assignment, _versions(theirs, assignment, student))
        assert registry.register(ours, assignment, _versions(ours, assignment, student)) == []
    expected, got = dump(theirs), dump(ours)
    assert len(expected["source_cell"]) > 20 and expected["grade_cells"] and expected["solution_cells"]
    assert got == expected


def test_a_notebook_held_as_it_would_be_written_is_left_alone(two):
    _, ours = two
    registry.register(ours, "self_attention", _versions(ours, "self_attention", "alice"))
    before = dump(ours)
    with closing(sqlite3.connect(ours.db_url[len("sqlite:///"):])) as db:
        ids = sorted(db.execute("SELECT id FROM notebook"))
    assert registry.register(ours, "self_attention", _versions(ours, "self_attention", "alice")) == []
    with closing(sqlite3.connect(ours.db_url[len("sqlite:///"):])) as db:
        assert sorted(db.execute("SELECT id FROM notebook")) == ids   # not replaced
    assert dump(ours) == before


def test_a_notebook_registered_differently_goes_to_savecells(two):
    theirs, ours = two
    for course in (theirs, ours):
        register(course, build_variant(course, AssignmentSource.load(course, "self_attention"), "alice",
                                       b"oracle-secret"), Stripper())
    # another student's variant: other numbers in the locked cells' sources
    bob = _versions(ours, "self_attention", "bob")
    assert sorted(registry.register(ours, "self_attention", bob)) == sorted(bob)
    for course in (theirs, ours):
        register(course, build_variant(course, AssignmentSource.load(course, "self_attention"), "bob",
                                       b"oracle-secret"), Stripper())
    assert dump(ours) == dump(theirs)


def test_nbgrader_reads_and_grades_what_registry_wrote(two):
    _, ours = two
    registry.register(ours, "self_attention", _versions(ours, "self_attention", "alice"))
    from nbgrader.api import Gradebook

    with Gradebook(ours.db_url) as gb:
        gb.add_student("alice")
        notebook = gb.find_notebook("self_attention", "self_attention")
        assert notebook.max_score > 0 and len(notebook.grade_cells) > 3
        submission = gb.add_submission("self_attention", "alice")
        graded = next(nb for nb in submission.notebooks if nb.name == "self_attention")
        assert len(graded.grades) == len(notebook.grade_cells)
