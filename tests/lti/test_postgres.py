"""The outbox in a course whose database is PostgreSQL: the same tables, the same once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import CourseDir
from pgserver import PostgresServer, pg_bindir

from lti.conftest import grade, gradebook, launch, register
from lti.lms import Served

pytestmark = [pytest.mark.slow, pytest.mark.skipif(pg_bindir() is None, reason="PostgreSQL server not installed")]
REPO = Path(__file__).resolve().parents[2]


def test_scores_from_a_postgresql_course_once(tmp_path):
    pytest.importorskip("psycopg")
    server = PostgresServer().start()
    served = None
    try:
        url = server.createdb("gradebook")
        root = tmp_path / "pgcourse"
        root.mkdir()
        for part in ("source", "autograder", "solutions"):
            shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__", "quiz*"))
        (root / "nbgrader_config.py").write_text(
            f"c = get_config()\nc.CourseDirectory.course_id = 'pgcourse'\nc.CourseDirectory.db_url = '{url}'\n"
        )
        course = CourseDir(root)
        course.write_settings("self_attention", "")
        course.add_students("ada", "wei")
        course.generate()
        served = Served(names=["ada", "wei"])
        register(course, served.lms)
        for student in ("ada", "wei"):
            launch(course, served.lms, student)
            grade(course, student, 0.5)
        assert course.cli("lti", "sync") == 0
        assert course.cli("lti", "sync") == 0  # nothing new
        book = gradebook(served.lms)
        assert len(book["lineitems"]) == 1 and sorted(s["username"] for s in book["scores"]) == ["ada", "wei"]
        assert all(s["posts"] == 1 and len(s["applied"]) == 1 for s in book["scores"])
        from sqlalchemy import inspect

        from gradekit.lti import store

        assert "lti_outbox" in inspect(store.engine(course.course)).get_table_names()  # in PostgreSQL itself
    finally:
        if served is not None:
            served.close()
        from gradekit.lti import store

        for engine in store._ENGINES.values():
            engine.dispose()  # type: ignore[attr-defined]
        store._ENGINES.clear()
        server.stop()
