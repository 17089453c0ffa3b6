"""Opening nbgrader's Gradebook for a course, through nbgrader's own API.

nbgrader's API is imported only when nothing lighter will do (see
:mod:`gradekit.gradebook.sql_read` and :mod:`gradekit.gradebook.sql_write`): the
import of nbgrader and SQLAlchemy alone costs a process more than a second.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gradekit.course import Course
from gradekit.errors import GradebookError
from gradekit.extras import require

if TYPE_CHECKING:  # pragma: no cover
    from nbgrader.api import Gradebook


def api():
    """nbgrader.api, imported without nbgrader's package __init__ (its Jupyter server extensions:
    tornado handlers, the apps, nbconvert), which gradekit never uses."""
    from gradekit.imports import nbgrader_api

    return nbgrader_api()


def open_gradebook(course: Course) -> Gradebook:
    """nbgrader's Gradebook for this course.

    A new database is stamped with nbgrader's migration head here (:func:`stamp_new`); where that cannot
    be read, nbgrader runs the ``alembic`` command itself: this Python's scripts go first on PATH so that
    it is found when gradekit was started without the virtualenv activated.
    """
    if course.db_url.split(":", 1)[0].split("+", 1)[0] == "postgresql":
        require("postgres")
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
    try:
        stamp_new(course.db_url)
        gb = api().Gradebook(course.db_url)
    except Exception as exc:  # a server that is down, a file that cannot be created, a bad URL
        raise GradebookError(
            f"the gradebook at {_redacted(course.db_url)} cannot be opened "
            f"({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''})"
        ) from None
    return gb


@functools.cache
def alembic_head() -> str | None:
    """The newest of nbgrader's gradebook migrations, read from its migration files (each names its
    ``revision`` and the ``down_revision`` it follows); None unless exactly one is followed by none."""
    spec = importlib.util.find_spec("nbgrader")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        return None
    revisions, followed = set(), set()
    for folder in spec.submodule_search_locations:
        for path in (Path(folder) / "alembic" / "versions").glob("*.py"):
            text = path.read_text()
            revision = re.search(r"^revision = ['\"](\w+)['\"]", text, re.M)
            down = re.search(r"^down_revision = ['\"](\w+)['\"]", text, re.M)
            if revision:
                revisions.add(revision.group(1))
            if down:
                followed.add(down.group(1))
    heads = revisions - followed
    return heads.pop() if len(heads) == 1 else None


def stamp_new(db_url: str) -> None:
    """A database with no table yet gets nbgrader's ``alembic_version`` table, as nbgrader's Gradebook
    writes it, before the Gradebook opens it. The Gradebook finds the head of a new database by running
    ``alembic heads`` in a process of its own: over a second of CPU for each new course's first command;
    stamped here, it finds a database that exists and makes the rest of its tables."""
    head = alembic_head()
    if head is None or _sqlite_with_content(db_url):
        return
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(db_url)
    try:
        with engine.begin() as db:
            if not inspect(db).get_table_names():
                db.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
                db.execute(text("INSERT INTO alembic_version (version_num) VALUES (:head)"), {"head": head})
    finally:
        engine.dispose()


def _sqlite_with_content(db_url: str) -> bool:
    """A SQLite gradebook whose file is there and not empty: it has its tables (no connection needed)."""
    if not db_url.startswith("sqlite:///"):
        return False
    path = Path(db_url[len("sqlite:///") :])
    return path.is_file() and path.stat().st_size > 0


def _redacted(url: str) -> str:
    """A database URL without its password."""
    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", url)
