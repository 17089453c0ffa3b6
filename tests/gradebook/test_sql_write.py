"""gradekit.gradebook.sql_write against nbgrader's API: the oracle.

Two copies of one gradebook (both shipped assignments registered, the same
students) receive the same results -- first gradings, regradings with and
without a new timestamp, manual grades set by hand in between, submissions
that could not be graded at all -- one written by gradekit.gradebook.write.record
through nbgrader's API, one by gradekit.gradebook.sql_write. After every step they
hold the same rows (ids aside, which both draw at random), value types
included. A late submission is left to nbgrader.
"""

from __future__ import annotations

import datetime as dt
import random
import shutil
import sqlite3
from contextlib import closing

import pytest

from conftest import REPO, _empty_gradebook
from gradekit.gradebook import sql_write as sqlite_grades
from gradekit.notebook.cells import grade_id, is_graded, is_solution, points
from gradekit.course import Course
from gradekit.gradebook.connect import open_gradebook
from gradekit.gradebook.write import record
from gradekit.release.cache import ReleaseCache
from gradekit.release.stripper import Stripper
from gradekit.release.generate import register
from gradekit.results import CellResult, Check, NotebookResult, SubmissionResult
from gradekit.authoring.template import AssignmentSource
from gradekit.untrusted import TIMESTAMP_FORMAT
from gradekit.authoring.variant import build_variant

ASSIGNMENTS = ("self_attention", "multi_head_attention")
STUDENTS = [f"s{i:02d}" for i in range(8)]
TABLES = ("submitted_assignment", "submitted_notebook", "grade", "comment")


@pytest.fixture()
def two(tmp_path, monkeypatch):
    """Two identical courses: both assignments registered, the students added."""
    monkeypatch.setenv("GRADEKIT_SECRET", "oracle-secret")
    root = tmp_path / "nbgrader"
    root.mkdir()
    shutil.copy(REPO / "nbgrader_config.py", root)
    shutil.copytree(REPO / "source", root / "source", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(_empty_gradebook(), root / "gradebook.db")
    course = Course.load(root)
    for assignment in ASSIGNMENTS:
        register(course, build_variant(course, AssignmentSource.load(course, assignment), STUDENTS[0]), Stripper())
    with open_gradebook(course) as gb:
        for student in STUDENTS:
            gb.add_student(student)
    shutil.copytree(root, tmp_path / "gradekit")
    return course, Course.load(tmp_path / "gradekit")


def _cells(course: Course) -> dict:
    """(assignment, notebook) -> [(grade_id, points, manual)] from a released variant."""
    out = {}
    for assignment in ASSIGNMENTS:
        variant = build_variant(course, AssignmentSource.load(course, assignment), STUDENTS[0])
        for name, nb in ReleaseCache(course, assignment).student_versions(variant).items():
            out[(assignment, name)] = [(grade_id(c), points(c), is_solution(c)) for c in nb.cells if is_graded(c)]
    return out


def _result(rng: random.Random, cells: dict, assignment: str, student: str, stamp=None) -> SubmissionResult:
    result = SubmissionResult(student, assignment, timestamp=stamp)
    if rng.random() < 0.15:
        result.error = "no submission"
        return result
    for (a, notebook), graded in sorted(cells.items()):
        if a != assignment or rng.random() < 0.1:   # now and then a notebook is missing
            continue
        nb = NotebookResult(notebook)
        for gid, worth, manual in graded:
            if manual:
                nb.cells.append(CellResult(gid, worth, None, manual=True))
            else:
                score = rng.choice([0.0, worth, round(worth * rng.random(), 6), 0])
                nb.cells.append(CellResult(gid, worth, score, [Check("c", score == worth)]))
        nb.cells.append(CellResult("not_in_the_gradebook", 1.0, 1.0))
        result.notebooks.append(nb)
    return result


def _stamp(rng: random.Random) -> str | None:
    if rng.random() < 0.3:
        return None
    when = dt.datetime(2026, 11, 1) + dt.timedelta(seconds=rng.randrange(10**6), microseconds=rng.randrange(10**6))
    return when.strftime(TIMESTAMP_FORMAT)


def dump(course: Course) -> dict:
    with closing(sqlite3.connect(course.db_url[len("sqlite:///"):])) as db:
        names = {}
        for aid, name in db.execute("SELECT id, name FROM assignment"):
            names[aid] = name
        for nid, name, aid in db.execute("SELECT id, name, assignment_id FROM notebook"):
            names[nid] = f"{names[aid]}/{name}"
        for cid, name, nid, kind in db.execute("SELECT id, name, notebook_id, type FROM base_cell"):
            names[cid] = f"{names[nid]}/{name} ({kind})"
        for sid, aid, student in db.execute("SELECT id, assignment_id, student_id FROM submitted_assignment"):
            names[sid] = f"{names[aid]} by {student}"
        for snid, sid, nid in db.execute("SELECT id, assignment_id, notebook_id FROM submitted_notebook"):
            names[snid] = f"{names[sid]}: {names[nid]}"
        for table in ("grade", "comment"):
            for gid, snid, cid in db.execute(f"SELECT id, notebook_id, cell_id FROM {table}"):
                names[gid] = f"{table} of {names[snid]} / {names[cid]}"
        out = {}
        for table in TABLES:
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            select = ", ".join(f"{c}, typeof({c})" for c in columns)
            out[table] = sorted((tuple(names.get(v, v) for v in row) for row in db.execute(f"SELECT {select} FROM {table}")),
                                key=repr)
        return out


def _both(theirs: Course, ours: Course, result: SubmissionResult) -> None:
    with open_gradebook(theirs) as gb:
        record(gb, SubmissionResult.from_dict(result.to_dict()), theirs)
    mine = SubmissionResult.from_dict(result.to_dict())
    assert sqlite_grades.record(ours, mine), f"declined {result.student}/{result.assignment}"
    assert all(nb.late_penalty is None for nb in mine.notebooks)


def _set_manual(course: Course, rng_seed: int) -> None:
    """An instructor grades some answers by hand (the same ones in both gradebooks)."""
    rng = random.Random(rng_seed)
    with open_gradebook(course) as gb:
        for assignment in ASSIGNMENTS:
            for student in STUDENTS[::2]:
                try:
                    submission = gb.find_submission(assignment, student)
                except Exception:   # noqa: BLE001 - not submitted
                    continue
                for nb in sorted(submission.notebooks, key=lambda n: n.name):
                    for grade in sorted(nb.grades, key=lambda g: g.name):
                        if rng.random() < 0.4:
                            grade.manual_score = float(rng.randrange(3))
        gb.db.commit()


def test_results_are_written_as_nbgrader_writes_them(two):
    theirs, ours = two
    cells = _cells(theirs)
    rng = random.Random(15)
    assert dump(theirs) == dump(ours)
    for round_ in range(3):
        for assignment in ASSIGNMENTS:
            for student in STUDENTS:
                _both(theirs, ours, _result(rng, cells, assignment, student, _stamp(rng)))
        expected = dump(theirs)
        assert len(expected["grade"]) >= len(STUDENTS) * 10 and expected["comment"]
        assert dump(ours) == expected, f"round {round_}"
        _set_manual(theirs, round_)
        _set_manual(ours, round_)
        assert dump(ours) == dump(theirs)


def _due(course: Course, when: dt.datetime) -> None:
    with open_gradebook(course) as gb:
        gb.update_or_create_assignment("self_attention", duedate=when)


def test_a_late_submission_is_left_to_nbgrader(two):
    theirs, ours = two
    cells = _cells(theirs)
    rng = random.Random(3)
    due = dt.datetime(2026, 11, 10)
    for course in two:
        _due(course, due)
    on_time = (due - dt.timedelta(hours=1)).strftime(TIMESTAMP_FORMAT)
    late = (due + dt.timedelta(hours=1)).strftime(TIMESTAMP_FORMAT)
    result = _result(random.Random(1), cells, "self_attention", "s01", on_time)
    result.error, result.notebooks = None, result.notebooks or _result(rng, cells, "self_attention", "s01").notebooks
    _both(theirs, ours, result)                      # due date set, on time: written here
    assert dump(ours) == dump(theirs)
    before = dump(ours)
    result.timestamp = late
    assert not sqlite_grades.record(ours, result)   # late: nbgrader's plugin decides
    assert dump(ours) == before                     # and nothing was written



def test_the_class_report_reads_the_gradebook_as_nbgrader_does(two):
    """gradebook.read_class_marks (plain SQL) against class_marks (nbgrader's API), on one gradebook
    with manual grades, a due date, an extension, late and on-time submissions and penalties."""
    from gradekit.gradebook.marks import class_marks, read_class_marks

    theirs, _ = two
    cells = _cells(theirs)
    rng = random.Random(8)
    due = dt.datetime(2026, 11, 10)
    _due(theirs, due)
    for student in STUDENTS:
        _both_api(theirs, _result(rng, cells, "self_attention", student,
                                  (due + dt.timedelta(hours=rng.randrange(-48, 48))).strftime(TIMESTAMP_FORMAT)))
        _both_api(theirs, _result(rng, cells, "multi_head_attention", student, _stamp(rng)))
    _set_manual(theirs, 1)
    with open_gradebook(theirs) as gb:
        submission = gb.find_submission("self_attention", STUDENTS[1])
        submission.extension = dt.timedelta(hours=30)
        for nb in submission.notebooks:
            nb.late_submission_penalty = 1.5
        gb.db.commit()
    for assignment in (*ASSIGNMENTS, "not_registered"):
        with open_gradebook(theirs) as gb:
            expected = class_marks(gb, assignment)
        got = read_class_marks(theirs, assignment)
        assert got == expected, assignment
    expected = class_marks_of(theirs, "self_attention")
    assert expected.manual and expected.penalties and any(expected.seconds_late.values())


def class_marks_of(course, assignment):
    from gradekit.gradebook.marks import class_marks

    with open_gradebook(course) as gb:
        return class_marks(gb, assignment)


def _both_api(course: Course, result: SubmissionResult) -> None:
    with open_gradebook(course) as gb:
        record(gb, result, course)
