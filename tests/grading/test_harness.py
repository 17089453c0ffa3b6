"""Graders run with plain pytest (the `gradekit` pytest11 entry point), and pytest's own
fixtures (tmp_path, monkeypatch, capsys) work in graders, inside gradekit and out."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ASSIGNMENT, NOTEBOOK, with_solutions
from gradekit.sandbox.bwrap import bwrap_path

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")]

WRONG_AXIS = ("def softmax(x, axis=-1):\n    x = np.asarray(x, dtype=float)\n"
              "    e = np.exp(x - x.max(axis=0, keepdims=True))\n    return e / e.sum(axis=0, keepdims=True)\n")

USES_PYTEST_FIXTURES = '''

def test_with_pytest_fixtures(student, tmp_path, monkeypatch, capsys):
    """pytest's own fixtures in a grader"""
    import numpy as np

    monkeypatch.setenv("GRADEKIT_PLUGIN_PROBE", "1")
    (tmp_path / "x.txt").write_text("ok")
    print("from the grader")
    assert capsys.readouterr().out == "from the grader\\n"
    assert (tmp_path / "x.txt").read_text() == "ok"
    got = student.softmax(np.zeros((2, 3)), axis=-1)
    assert np.allclose(got, 1 / 3), "softmax of zeros is uniform"
'''


def _pytest(course, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"autograder/{ASSIGNMENT}/test_softmax.py", *args],
                          cwd=course.root, capture_output=True, text=True, timeout=300)


def _counts(out: str) -> dict[str, int]:
    return {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|error)", out)}


def test_graders_run_with_plain_pytest(course):
    course.generate("alice", "bob")
    (course.root / "autograder" / ASSIGNMENT / "test_softmax.py").open("a").write(USES_PYTEST_FIXTURES)
    course.submit("alice", course.answer_key("alice"))
    course.submit("bob", with_solutions(course.answer_key("bob"), {"softmax": WRONG_AXIS}))

    right = _pytest(course, f"--gradekit-submission=submitted/alice/{ASSIGNMENT}/{NOTEBOOK}.ipynb")
    assert right.returncode == 0, right.stdout + right.stderr
    assert _counts(right.stdout).get("failed", 0) == 0 and _counts(right.stdout)["passed"] >= 5

    wrong = _pytest(course, f"--gradekit-submission=submitted/bob/{ASSIGNMENT}/")
    assert wrong.returncode == 1
    counts = _counts(wrong.stdout)
    assert counts["failed"] >= 1 and "axis" in wrong.stdout

    key = _pytest(course, "--gradekit-answer-key", "--gradekit-student=bob")
    assert key.returncode == 0, key.stdout + key.stderr

    # the same grader, pytest fixtures and all, inside gradekit's own grading run
    assert course.autograde("alice", "bob") == 0
    results = course.results(["alice", "bob"])
    checks = {c.name: c.passed for c in results["alice"].cell("test_softmax").checks}
    assert checks["pytest's own fixtures in a grader"] is True
    assert results["alice"].cell("test_softmax").score == results["alice"].cell("test_softmax").points
    assert results["bob"].cell("test_softmax").score < results["bob"].cell("test_softmax").points


def test_without_a_submission_the_plugin_stays_out_of_the_way(course):
    proc = subprocess.run([sys.executable, "-m", "pytest", "--help"], cwd=course.root, capture_output=True,
                          text=True, timeout=120)
    assert "--gradekit-submission" in proc.stdout


def test_without_the_options_a_grader_says_how_to_run_it(course):
    """Plain `pytest autograder/<a>`: each grader stops with how to run it (not pytest's
    "fixture 'student' not found"), and the `weight` marker is known either way."""
    course.generate("alice")
    (course.root / "autograder" / ASSIGNMENT / "test_softmax.py").open("a").write(
        "\n\nimport pytest\n\n\n@pytest.mark.weight(0.5)\ndef test_a_weighted_check(student):\n    assert student\n")
    plain = _pytest(course, "-W", "error::pytest.PytestUnknownMarkWarning")
    assert plain.returncode == 1, plain.stdout + plain.stderr
    assert "run them with --gradekit-answer-key" in plain.stdout and "not found" not in plain.stdout
    key = _pytest(course, "--gradekit-answer-key", "--gradekit-student=alice",
                  "-W", "error::pytest.PytestUnknownMarkWarning")
    assert key.returncode == 0, key.stdout + key.stderr
