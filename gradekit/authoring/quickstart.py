"""``gradekit quickstart DIR``: a new course directory anywhere, that passes ``gradekit check`` at once.

Like ``nbgrader quickstart``, but the course grades from the start. ``DIR`` (new, or empty) gets:

* ``nbgrader_config.py``: the course id (DIR's name), a SQLite gradebook, gradekit's exchange
  classes, and pointers to the settings;
* one assignment scaffolded as ``gradekit new`` scaffolds it (an exercise, a question, their
  hidden graders, the reference and a QA set);
* ``roster.csv``, three example students (the command imports them into the gradebook, so that
  ``gradekit generate`` hands out at once);
* ``.gitignore``, which keeps the private files out of git: the solutions, the hidden graders,
  the course secret, the gradebook, the roster, and every folder a gradekit command (or nbgrader, or
  ``make course-env``) writes into the course -- what students handed in or were given, the answer
  keys (the docs' ``key/``), the pages, the reports, the exports. A folder the user names
  (``check --keep DIR``, ``demo --keep DIR``) gets a ``.gitignore`` of its own
  (:func:`gradekit.course.keep_out_of_git`).

The files come from ``course_skeleton/`` (package data); ``__COURSE__`` in them becomes the
course id. A directory that holds anything already is refused, and a failure half-way leaves
nothing behind (:func:`new_course`).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

from gradekit.errors import UsageError
from gradekit.untrusted import is_valid_id

SKELETON = Path(__file__).resolve().parent / "course_skeleton"
FILES = {
    "nbgrader_config.py.tmpl": "nbgrader_config.py",
    "roster.csv.tmpl": "roster.csv",
    "gitignore.tmpl": ".gitignore",
}
NAME = "__COURSE__"


def course_id_for(directory: Path) -> str:
    """A course id from the directory's name: its ASCII letters, digits, ``_`` and ``-`` (else ``course``)."""
    cleaned = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_-") else "_" for ch in directory.name)
    cleaned = cleaned.strip("_-")
    return cleaned if cleaned and is_valid_id(cleaned) else "course"


@contextlib.contextmanager
def new_course(directory: Path) -> Iterator[Path]:
    """The course's directory (new, or empty), emptied again (or removed) if the block fails."""
    directory = directory.resolve()
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"quickstart: {directory} is a file, not a directory")
    if directory.is_dir() and any(directory.iterdir()):
        what = "a course already" if (directory / "nbgrader_config.py").exists() else "not empty"
        raise UsageError(f"quickstart: {directory} is {what}; give a new or empty directory")
    made = not directory.exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        yield directory
    except BaseException:
        if made:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            for child in directory.iterdir():
                shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
        raise


def write_course(directory: Path, assignment: str = "week1") -> list[Path]:
    """The course's files in ``directory`` (see the module's docstring); the paths written."""
    from gradekit.authoring.scaffold import new_assignment
    from gradekit.course import Course

    course_id = course_id_for(directory)
    written = []
    for template, name in FILES.items():
        text = (SKELETON / template).read_text(encoding="utf-8").replace(NAME, course_id)
        (directory / name).write_text(text, encoding="utf-8")
        written.append(directory / name)
    written += new_assignment(Course.load(directory), assignment)
    return written
