"""The worker's own files: all of gradekit that runs in the sandbox, what they import, and that
the student's code can read but not change them."""

from __future__ import annotations

import ast
import hashlib
import sys

import pytest

from gradekit.sandbox.bwrap import WORKER_DIR, WORKER_FILES, bwrap_path
from gradekit.sandbox.client import Sandbox
from gradekit.sandbox.limits import Limits

# what the sandbox has besides the standard library: what every sandbox imports as it starts
ALLOWED = {"numpy", "IPython"}


def _imports(path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - {"__future__"}


@pytest.mark.parametrize("name", WORKER_FILES)
def test_a_worker_file_imports_the_standard_library_numpy_ipython_and_its_siblings_only(name):
    siblings = {n.removesuffix(".py") for n in WORKER_FILES}
    outside = {
        module
        for module in _imports(WORKER_DIR / name)
        if module not in sys.stdlib_module_names and module not in ALLOWED and module not in siblings
    }
    assert outside == set(), f"{name} imports {outside}: the sandbox has no gradekit (see bwrap.WORKER_FILES)"


def test_every_module_the_worker_imports_of_its_own_is_copied_in():
    siblings = {n.removesuffix(".py") for n in WORKER_FILES}
    ours = {p.stem for p in WORKER_DIR.glob("*.py")}
    for name in WORKER_FILES:
        used = _imports(WORKER_DIR / name) & ours
        assert used <= siblings, f"{name} imports {used - siblings}, which bwrap does not copy in"


CODE = '''
import hashlib, os

def worker_files(names):
    seen = {}
    for name in names:
        path = "/opt/gradekit/" + name
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        try:
            with open(path, "ab") as fh:
                fh.write(b"# changed")
            wrote = "written"
        except OSError as exc:
            wrote = type(exc).__name__
        seen[name] = [digest, wrote]
    return seen
'''


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_the_sandbox_runs_these_files_and_the_students_code_cannot_change_them():
    with Sandbox(Limits()) as sb:
        assert all(r["ok"] for r in sb.run_cells([{"id": "c", "source": CODE}]))
        seen = sb.call("worker_files", (list(WORKER_FILES),))
    for name in WORKER_FILES:
        digest, wrote = seen[name]
        assert digest == hashlib.sha256((WORKER_DIR / name).read_bytes()).hexdigest(), name
        assert wrote != "written", name
