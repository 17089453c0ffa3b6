"""A shared gradebook on PostgreSQL: generate, autograde, export and formgrader's API.

The server is a real PostgreSQL from Debian's package, started by the test on
loopback (see pgserver.py); nbgrader's ``db_url`` in nbgrader_config.py points at it.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pgserver import PostgresServer, pg_bindir

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(pg_bindir() is None, reason="PostgreSQL server not installed")]


@pytest.fixture(scope="module")
def pg_course(tmp_path_factory):
    server = PostgresServer().start()
    try:
        url = server.createdb("gradebook")
        root = tmp_path_factory.mktemp("pgcourse")
        for part in ("source", "autograder", "solutions"):
            shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
        (root / "nbgrader_config.py").write_text(
            "c = get_config()\n"
            "c.CourseDirectory.course_id = 'pgcourse'\n"
            f"c.CourseDirectory.db_url = '{url}'\n")
        yield root, url
    finally:
        server.stop()


def run(root, *cmd, ok=True):
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "GRADEKIT_SECRET": "pg-test-secret", "HOME": str(root)}
    proc = subprocess.run(list(cmd), cwd=root, capture_output=True, text=True, env=env)
    if ok:
        assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def test_whole_pipeline_on_postgres(pg_course):
    root, url = pg_course
    for student in ("ada", "bob", "cy"):
        run(root, str(BIN / "nbgrader"), "db", "student", "add", student)
    run(root, str(BIN / "gradekit"), "generate", "self_attention")
    assert sorted(p.name for p in (root / "release").iterdir()) == ["ada", "bob", "cy"]

    # ada hands in her answer key, bob his untouched notebook, cy nothing
    key = root / "key"
    run(root, str(BIN / "gradekit"), "answer-key", "self_attention", "--student", "ada", "--out", str(key))
    (root / "submitted" / "ada" / "self_attention").mkdir(parents=True)
    for notebook in key.glob("*.ipynb"):  # the exercises and the quiz
        shutil.copy(notebook, root / "submitted" / "ada" / "self_attention")
    (root / "submitted" / "bob" / "self_attention").mkdir(parents=True)
    shutil.copy(root / "release" / "bob" / "self_attention" / "self_attention.ipynb",
                root / "submitted" / "bob" / "self_attention")
    run(root, str(BIN / "gradekit"), "autograde", "self_attention", "--jobs", "2")

    # nbgrader export reads the scores back from PostgreSQL
    run(root, str(BIN / "nbgrader"), "export")
    rows = {r["student_id"]: r for r in csv.DictReader(open(root / "grades.csv"))}
    # full marks but for the quiz's free-text answers, which wait for a person
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        manual = sum(c.max_score for nb in gb.find_assignment("self_attention").notebooks
                     for c in nb.grade_cells if c.cell_type == "markdown")
    assert manual > 0
    assert float(rows["ada"]["score"]) == float(rows["ada"]["max_score"]) - manual
    assert float(rows["bob"]["score"]) == 0.0
    assert float(rows["cy"]["score"]) == 0.0

    # formgrader's backend (nbgrader's NbGraderAPI) lists the submissions with their scores
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.db_url = url
    config.CourseDirectory.course_id = "pgcourse"
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    subs = {s["student"]: s for s in api.get_submissions("self_attention")}
    assert subs["ada"]["score"] == subs["ada"]["max_score"] - manual
    assert subs["ada"]["needs_manual_grade"] is True
    assert subs["ada"]["autograded"] is True
    assert subs["bob"]["score"] == 0
    per_notebook = {s["student"]: s for s in api.get_notebook_submissions("self_attention", "self_attention")}
    assert per_notebook["ada"]["score"] == per_notebook["ada"]["max_score"]
    assert per_notebook["bob"]["needs_manual_grade"] is False
