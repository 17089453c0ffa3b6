"""``gradekit new``: start an assignment, from the skeleton or as a copy of another.

The skeleton (package data in ``gradekit/authoring/skeleton/``) mirrors the course
layout; ``__ASSIGNMENT__`` in its paths and texts becomes the new name and
``__TITLE__`` a readable title, and the ``.tmpl`` suffix is dropped. It gives an
assignment that grades at once: a notebook template with one exercise and one
question, ``params.py``, its settings (``assignment.toml``: every key, commented
out with the course's value; :mod:`gradekit.settings`), a hidden grader per test
cell, the reference, and a QA set: a mistake for the exercise, one for the question (over
the variables the setup cell gives it), and a right answer written another way.

``--from EXISTING`` copies ``source/``, ``autograder/`` and ``solutions/`` of
an existing assignment instead, renaming the files and folders named after it
(``EXISTING.ipynb`` becomes ``NEW.ipynb``); file contents are copied unchanged.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from gradekit.course import Course
from gradekit.errors import UsageError
from gradekit.untrusted import require_id

SKELETON = Path(__file__).resolve().parent / "skeleton"
PARTS = ("source", "autograder", "solutions")
NAME, TITLE, SUFFIX = "__ASSIGNMENT__", "__TITLE__", ".tmpl"
_JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis")


def new_assignment(course: Course, name: str, template: str | None = None) -> list[Path]:
    """Write the new assignment's files into the course; return their paths.

    Refuses (UsageError) when any of its folders exists already, and leaves
    nothing behind when writing fails half-way.
    """
    require_id("assignment", name)
    targets = [course.root / part / name for part in PARTS]
    for target in targets:
        if target.exists() or target.is_symlink():
            raise UsageError(f"assignment {name!r} exists already: {target} is there")
    if template is not None:
        require_id("assignment", template)
        if not (course.root / "source" / template).is_dir():
            known = ", ".join(course.assignments()) or "none"
            raise UsageError(f"--from: unknown assignment {template!r} (known: {known})")
    try:
        return _copy(course, template, name) if template else _from_skeleton(course, name)
    except BaseException:
        for target in targets:
            shutil.rmtree(target, ignore_errors=True)
        raise


def _from_skeleton(course: Course, name: str) -> list[Path]:
    title = name.replace("_", " ").replace("-", " ").strip().capitalize()
    written = []
    for path in sorted(SKELETON.rglob(f"*{SUFFIX}")):
        relative = str(path.relative_to(SKELETON))[: -len(SUFFIX)].replace(NAME, name)
        target = course.root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text(encoding="utf-8").replace(NAME, name).replace(TITLE, title)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    from gradekit import settings

    target = course.root / "source" / name / settings.SETTINGS_FILE
    target.write_text(settings.template(course.settings_of(name).values), encoding="utf-8")
    written.append(target)
    return written


def _copy(course: Course, old: str, name: str) -> list[Path]:
    written = []
    for part in PARTS:
        source = course.root / part / old
        if not source.is_dir():
            continue
        target = course.root / part / name
        shutil.copytree(source, target, ignore=_JUNK, symlinks=False)
        # deepest first, so a renamed folder does not move paths still to be visited
        for path in sorted(target.rglob("*"), key=lambda p: len(p.parts), reverse=True):
            if path.name == old or path.stem == old:
                path.rename(path.with_name(name + path.name[len(old) :]))
        written += sorted(p for p in target.rglob("*") if p.is_file())
    return written
