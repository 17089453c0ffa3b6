"""The hidden graders of one assignment, run against one notebook's sandbox.

``autograder/<assignment>/test_<cell>.py`` grades the autograder test cell
whose grade_id is ``test_<cell>``; the cell's points are shared among the
module's tests by weight (``@pytest.mark.weight(2)``, default 1). The reference
code is ``solutions/<assignment>/reference.py``. Both are loaded in the trusted
process only; the sandbox never sees them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path
from typing import Any

import pytest

from ..course import Course
from ..errors import TemplateError
from ..results import Check
from .plugin import GraderPlugin


# pytest plugins a grading run has no use for; unraisableexception alone costs a
# full gc.collect() twice per run
_UNUSED_PLUGINS = ("cacheprovider", "stepwise", "unraisableexception", "threadexception", "junitxml",
                   "doctest", "pastebin", "legacypath", "faulthandler", "logging", "warnings", "tmpdir",
                   "monkeypatch", "recwarn", "setuponly", "setupplan", "lsof")


class GraderSuite:
    def __init__(self, course: Course, assignment: str):
        self.directory = course.graders_dir(assignment)
        if not self.directory.is_dir():
            raise TemplateError(f"no hidden graders: {self.directory} does not exist")
        self.modules = {p.stem: p for p in sorted(self.directory.glob("test_*.py"))}
        self.reference = _load_reference(course.solutions_dir(assignment) / "reference.py")

    def check_covers(self, grade_ids: list[str], notebook: str) -> None:
        missing = [g for g in grade_ids if g not in self.modules]
        if missing:
            raise TemplateError(f"{notebook}: no grader file for test cell(s) "
                                f"{', '.join(missing)} in {self.directory}")

    def run(self, sandbox, grade_ids: list[str], params: dict, seed: int,
            budget: float | None = None) -> dict[str, list[Check]]:
        """Run the graders of these test cells; return their checks by cell.

        ``budget`` bounds the wall-clock seconds of all calls into the student's
        code: once spent, the remaining checks fail at once.
        """
        plugin = GraderPlugin(sandbox, self.reference, params, seed, budget)
        paths = [str(self.modules[g]) for g in grade_ids if g in self.modules]
        if not paths:
            return {}
        args = paths + ["-q", "--no-header"] + [a for p in _UNUSED_PLUGINS for a in ("-p", f"no:{p}")] + [
                        "--rootdir", str(self.directory), "-o", "addopts=", "-o", "python_files=test_*.py",
                        "--capture=sys"]
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            pytest.main(args, plugins=[plugin])
        if plugin.collect_errors:
            raise TemplateError("the hidden graders do not load: " + plugin.collect_errors[0])
        return plugin.checks


def _load_reference(path: Path) -> Any:
    if not path.is_file():
        return None
    name = "gradekit_reference_" + path.parent.name
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise TemplateError(f"{path}: {type(exc).__name__}: {exc}") from None
    sys.modules[name] = module
    return module
