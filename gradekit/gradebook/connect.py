"""Opening nbgrader's Gradebook for a course, through nbgrader's own API.

nbgrader's API is imported only when nothing lighter will do (see
:mod:`gradekit.gradebook.sql_read` and :mod:`gradekit.gradebook.sql_write`): the
import of nbgrader and SQLAlchemy alone costs a process more than a second.
"""

from __future__ import annotations

import os
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

    nbgrader runs the ``alembic`` command to set up a new database; put this
    Python's scripts first on PATH so that it is found when gradekit was
    started without the virtualenv activated.
    """
    if course.db_url.split(":", 1)[0].split("+", 1)[0] == "postgresql":
        require("postgres")
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
    try:
        gb = api().Gradebook(course.db_url)
    except Exception as exc:  # a server that is down, a file that cannot be created, a bad URL
        raise GradebookError(
            f"the gradebook at {_redacted(course.db_url)} cannot be opened "
            f"({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''})"
        ) from None
    return gb


def _redacted(url: str) -> str:
    """A database URL without its password."""
    import re

    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", url)
