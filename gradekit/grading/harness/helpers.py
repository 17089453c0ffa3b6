"""The course's own modules beside an assignment's graders, imported by their bare names.

``autograder/<assignment>/_common.py`` -- any module there but the graders (``test_*.py``) and
``conftest.py``, or a folder of them with an ``__init__.py`` -- is imported by a grader as plain
pytest would let it, ``from _common import shapes``: pytest puts a test file's folder on
``sys.path``. gradekit runs the graders with pytest's importlib mode instead, so that two
assignments' (or courses') ``test_q1.py`` never clash in one grading process; so that their
``_common.py`` do not clash either, :class:`Helpers` finds an assignment's helpers only while
its graders are collected or run (:meth:`Helpers.active`), and takes them out of
``sys.modules`` afterwards, kept for its next run.

A helper is the course's code, as trusted as the graders: it runs in the grading process, and
student code never sees it (the sandbox holds nothing of the course directory). A helper named
as a module Python can already import (``numpy.py``, ``random.py``) would shadow it for the
graders and gradekit alike: it is refused with one line naming the file.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from gradekit.errors import GraderError
from gradekit.imports import course_files

NOT_HELPERS = ("conftest",)  # the graders' own pytest plugin file, which pytest loads itself


def helper_files(directory: Path) -> dict[str, Path]:
    """The helper modules beside the graders in ``directory``: name -> the file that defines it
    (a ``.py`` file, or a folder's ``__init__.py``)."""
    if not directory.is_dir():
        return {}
    found = {}
    for path in sorted(directory.iterdir()):
        name = path.stem if path.suffix == ".py" else path.name
        if not name.isidentifier() or name.startswith("test_") or name in NOT_HELPERS:
            continue
        if path.is_file() and path.suffix == ".py":
            found[name] = path
        elif path.is_dir() and (path / "__init__.py").is_file():
            found[name] = path / "__init__.py"
    return found


class Helpers(importlib.abc.MetaPathFinder):
    """The helpers of one assignment's graders, importable while :meth:`active`."""

    def __init__(self, directory: Path, root: Path):
        self.files = helper_files(directory)
        self._kept: dict[str, ModuleType] = {}  # the helpers imported, between two active spells
        for name, path in self.files.items():
            if _elsewhere(name, path):
                where = path.parent if path.name == "__init__.py" else path
                raise GraderError(
                    f"{_relative(where, root)}: a helper module named {name!r} would hide the module {name!r} "
                    f"Python already imports: rename it (for instance _{name}_helpers.py)"
                )

    def find_spec(self, fullname, path=None, target=None):
        """A helper's spec, for a top-level import of its name (a package's submodules are found by
        the usual path finder, from the package's ``__path__``)."""
        if path is not None or fullname not in self.files:
            return None
        file = self.files[fullname]
        package = [str(file.parent)] if file.name == "__init__.py" else None
        return importlib.util.spec_from_file_location(fullname, file, submodule_search_locations=package)

    @contextmanager
    def active(self) -> Iterator[None]:
        """The helpers importable, and those imported before back in ``sys.modules``, for this block;
        the course's files it imports leave no byte code beside them (:func:`gradekit.imports.course_files`)."""
        with course_files():
            if not self.files:
                yield
                return
            sys.meta_path.insert(0, self)
            sys.modules.update(self._kept)
            try:
                yield
            finally:
                sys.meta_path.remove(self)
                for name in [n for n in sys.modules if n.partition(".")[0] in self.files]:
                    self._kept[name] = sys.modules.pop(name)


def _elsewhere(name: str, path: Path) -> bool:
    """Whether Python imports ``name`` from somewhere else than this helper's ``path`` (plain pytest
    may have put the graders' folder on sys.path: the helper is then found as itself)."""
    if name in sys.builtin_module_names:
        return True
    module = sys.modules.get(name)
    if module is not None:
        return Path(getattr(module, "__file__", None) or "/") != path
    try:
        spec = importlib.machinery.PathFinder.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and Path(spec.origin or "/").resolve() != path.resolve()


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
