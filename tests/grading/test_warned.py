"""What the course's code warns while it grades (gradekit/grading/harness/warned.py): noted once per run at
the course's own line, never printed by the grading processes; gradekit check lists each warning as a row,
autograde says each once after its table -- with the course's path, never a temporary copy's."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import warnings

import pytest

from conftest import VENV_BIN
from gradekit.grading.harness.warned import Warned
from gradekit.sandbox.bwrap import bwrap_path


def _module(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"warned_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_noted_once_at_the_course_s_line_and_through_a_library_at_the_line_that_called_it(tmp_path):
    course = tmp_path / "course"
    library = _module(tmp_path / "lib" / "somelib.py",
                      "import warnings\n\n\ndef deep():\n    warnings.warn('deep down', RuntimeWarning)\n")
    grader = _module(course / "autograder" / "a" / "test_x.py",
                     "import warnings\n\n\ndef twice(lib):\n    for _ in range(2):\n"
                     "        warnings.warn('mine', RuntimeWarning)\n    lib.deep()\n")
    warned = Warned(course, [course / "autograder" / "a", course / "solutions" / "a"])
    with warned.watching():
        grader.twice(library)
    assert warned.lines == [
        "autograder/a/test_x.py:6: RuntimeWarning: mine",
        f"autograder/a/test_x.py:7 (raised in {tmp_path / 'lib' / 'somelib.py'}:5): RuntimeWarning: deep down",
    ]
    with warned.watching():  # a new run: its own lines, the same warning noted again
        grader.twice(library)
        warnings.warn("outside the course", UserWarning)
    assert len(warned.lines) == 3 and warned.lines[2].endswith(": UserWarning: outside the course")
    assert "test_warned.py" in warned.lines[2]  # no line of the course's led there: where it was raised


WARNS = '''    np.array(values[:1]).var(ddof=1)  # one number has no sample variance: numpy warns, twice
'''


def _gradekit(root, *args):
    return subprocess.run([str(VENV_BIN / "gradekit"), *args], cwd=root, capture_output=True, text=True, timeout=600)


@pytest.mark.e2e
@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_check_lists_a_grader_s_warnings_and_autograde_says_them_once(tmp_path):
    from gradekit.cli.main import main

    root = tmp_path / "course"
    assert main(["quickstart", str(root)]) == 0
    grader = root / "autograder" / "week1" / "test_q1.py"
    text = grader.read_text()
    anchor = '    values = params["q1_values"]\n'
    assert anchor in text
    grader.write_text(text.replace(anchor, anchor + WARNS))
    line = grader.read_text().splitlines().index(WARNS.rstrip("\n")) + 1

    check = _gradekit(root, "check", "week1", "--students", "2", "--json")
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr
    assert "Warning" not in check.stderr and "/tmp" not in check.stderr, check.stderr
    report = json.loads(check.stdout)
    rows = [row for row in report["rows"] if row["check"].startswith("grader warning")]
    assert [row["check"] for row in rows] == [f"grader warning: test_q1.py:{line}"] * 2, rows
    assert all(row["status"] == "warn" for row in rows)
    gradings = report["gradings"]
    first, second = (row["detail"] for row in rows)
    assert first.startswith(f"autograder/week1/test_q1.py:{line}: RuntimeWarning: Degrees of freedom <= 0 for "
                            f"slice -- on {gradings} of {gradings} gradings: the grader's own code"), first
    assert second.startswith(f"autograder/week1/test_q1.py:{line} (raised in numpy/"), second
    assert "RuntimeWarning: invalid value encountered" in second

    assert _gradekit(root, "generate", "week1").returncode == 0
    for student in ("alice", "bob"):
        assert _gradekit(root, "answer-key", "week1", "--student", student, "--out",
                         str(root / "submitted" / student / "week1")).returncode == 0
    graded = _gradekit(root, "autograde", "week1")
    assert graded.returncode == 0, graded.stderr
    said = [w for w in graded.stderr.splitlines() if "warn" in w.lower()]
    assert said[0] == (f"gradekit: a grader warned, on 2 grading(s): autograder/week1/test_q1.py:{line}: "
                       "RuntimeWarning: Degrees of freedom <= 0 for slice"), graded.stderr
    assert len(said) == 2 and "(raised in numpy/" in said[1], graded.stderr
    assert str(root) not in graded.stderr
