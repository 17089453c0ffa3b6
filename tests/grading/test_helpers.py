"""The course's helper modules beside its graders (gradekit/grading/harness/helpers.py): a grader imports
``autograder/<a>/_common.py`` by its bare name, as plain pytest lets it, in gradekit check, autograde and
plain pytest alike; conftest.py's fixtures work too; two assignments' helpers of one name never clash;
a helper named as a module Python imports is refused; and student code in the sandbox cannot import one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest

from conftest import VENV_BIN, with_solutions
from gradekit.errors import GraderError
from gradekit.grading.harness.helpers import Helpers, helper_files
from gradekit.sandbox.bwrap import bwrap_path


def _write(folder, files: dict[str, str]):
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_the_helpers_are_the_modules_beside_the_graders_but_graders_and_conftest(tmp_path):
    _write(tmp_path, {"_common.py": "", "shapes/__init__.py": "", "shapes/more.py": "", "test_q1.py": "",
                      "conftest.py": "", "mistakes/q1_sum.py": "", "notes.txt": "", "not-a-name.py": ""})
    assert helper_files(tmp_path) == {"_common": tmp_path / "_common.py", "shapes": tmp_path / "shapes" / "__init__.py"}
    assert helper_files(tmp_path / "missing") == {}


def test_importable_only_while_active_and_each_assignment_its_own(tmp_path):
    one = _write(tmp_path / "autograder" / "one", {"_common.py": "WHO = 'one'\n",
                                                   "kit/__init__.py": "from kit.sizes import N\n",
                                                   "kit/sizes.py": "N = 3\n"})
    two = _write(tmp_path / "autograder" / "two", {"_common.py": "WHO = 'two'\n"})
    first, second = Helpers(one, tmp_path), Helpers(two, tmp_path)
    with first.active():
        import _common  # type: ignore[import-not-found]
        import kit  # type: ignore[import-not-found]

        assert (_common.WHO, kit.N) == ("one", 3)
    assert "_common" not in sys.modules and "kit.sizes" not in sys.modules
    with pytest.raises(ImportError):
        import _common  # type: ignore[import-not-found]  # noqa: F401, F811
    with second.active():
        import _common  # type: ignore[import-not-found]  # noqa: F811

        assert _common.WHO == "two"
    with first.active():
        import _common  # type: ignore[import-not-found]  # noqa: F811

        assert _common.WHO == "one" and sys.modules["kit.sizes"].N == 3  # kept: not run again


def test_a_helper_that_would_hide_a_module_python_imports_is_refused(tmp_path):
    folder = _write(tmp_path / "autograder" / "a", {"json.py": "", "_fine.py": ""})
    with pytest.raises(GraderError, match=r"^autograder/a/json.py: a helper module named 'json' would hide"):
        Helpers(folder, tmp_path)


# -- as an author uses them ------------------------------------------------------------------

COMMON = '''"""Shared by the graders of week1 (the course's own code: never the students')."""

import numpy as np

SHAPES = [(1, 6), (3, 5), (2, 8)]


def drawn(rng, shape):
    return rng.normal(loc=rng.normal() * 5, scale=3.0, size=shape)
'''

CONFTEST = '''import pytest

from _common import drawn


@pytest.fixture
def wide(rng):
    return drawn(rng, (2, 9))
'''

MORE_TESTS = '''

def test_a_wide_one(student, reference, wide):
    """a wide input"""
    _check(student, reference, wide, "a wide x")


def test_imported_as_it_runs(student, reference, rng):
    """one more shape"""
    from _common import drawn

    _check(student, reference, drawn(rng, (4, 3)), "a 4 x 3 input")
'''

PEEKS = '''def standardize(x):
    import _common
    return _common.SHAPES
'''


def _gradekit(root, *args):
    """gradekit in a process that may write byte code (Python's default), wherever this one runs."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.run([str(VENV_BIN / "gradekit"), *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)


def _byte_code(root) -> list[str]:
    """The byte code in the course's own folders (its graders, their helpers, the reference, params.py)."""
    return sorted(str(p.relative_to(root)) for part in ("autograder", "solutions", "source")
                  for p in (root / part).rglob("__pycache__"))


@pytest.mark.e2e
@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_graders_share_a_helper_and_conftest_fixtures_and_students_never_see_them(tmp_path):
    from gradekit.cli.main import main

    root = tmp_path / "course"
    assert main(["quickstart", str(root)]) == 0
    graders = root / "autograder" / "week1"
    _write(graders, {"_common.py": COMMON, "conftest.py": CONFTEST})
    grader = graders / "test_standardize.py"
    text = grader.read_text()
    shapes = "SHAPES = [(1, 6), (3, 5), (5, 4), (2, 8)]\n"
    assert shapes in text
    grader.write_text(text.replace(shapes, "from _common import SHAPES\n") + MORE_TESTS)

    check = _gradekit(root, "check", "week1", "--students", "2", "--json")
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr
    assert json.loads(check.stdout)["ok"] is True
    assert _byte_code(root) == []   # grading leaves the instructor's folders as they were

    # plain pytest, as the guide runs one grader at a time (pytest's own byte code is not gradekit's: kept out)
    plain = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "autograder/week1",
                            "--gradekit-answer-key", "--gradekit-student=alice"],
                           cwd=root, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), capture_output=True,
                           text=True, timeout=300)
    assert plain.returncode == 0, plain.stdout[-3000:] + plain.stderr
    assert "7 passed" in plain.stdout, plain.stdout  # test_q1, and test_standardize's six (one shape a case)

    # autograde: bob's standardize imports the graders' helper in the sandbox, and cannot
    assert _gradekit(root, "generate", "week1").returncode == 0
    for student in ("alice", "bob"):
        assert _gradekit(root, "answer-key", "week1", "--student", student, "--out",
                         str(root / "submitted" / student / "week1")).returncode == 0
    path = root / "submitted" / "bob" / "week1" / "week1.ipynb"
    nbformat.write(with_solutions(nbformat.read(str(path), as_version=4), {"standardize": PEEKS}), str(path))
    graded = _gradekit(root, "autograde", "week1")
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr
    results = {s: json.loads((root / "autograded" / s / "week1" / "results.json").read_text())
               for s in ("alice", "bob")}
    cells = {s: {c["grade_id"]: c for nb in r["notebooks"] for c in nb["cells"]} for s, r in results.items()}
    assert cells["alice"]["test_standardize"]["score"] == 2
    names = {k["name"] for k in cells["alice"]["test_standardize"]["checks"]}
    assert {"a wide input", "one more shape"} <= names
    bob = cells["bob"]["test_standardize"]
    assert bob["score"] == 0
    assert all("No module named '_common'" in k["message"] for k in bob["checks"]), bob["checks"]
    assert _byte_code(root) == []
