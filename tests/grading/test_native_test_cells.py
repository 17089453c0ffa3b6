"""An ordinary nbgrader assignment is graded: a test cell without a hidden grader is graded on
its own (visible and hidden) asserts, run in the sandbox after the cells before it, as nbgrader
would grade it -- all its points when it runs without an error, none otherwise."""

from __future__ import annotations

import pytest

from conftest import ASSIGNMENT, with_solutions
from gradekit.sandbox.bwrap import bwrap_path

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")]

IGNORES_WEIGHTS = "def weighted_sum(weights, V):\n    return np.zeros((np.shape(weights)[0], np.shape(V)[1]))\n"


def test_a_test_cell_without_a_grader_is_graded_by_its_own_asserts(course):
    (course.root / "autograder" / ASSIGNMENT / "test_weighted_sum.py").unlink()
    course.generate("alice", "bob", "carol")
    course.submit("alice", course.answer_key("alice"))
    course.submit("bob", with_solutions(course.answer_key("bob"), {"weighted_sum": IGNORES_WEIGHTS}))
    course.submit("carol", course.release("carol"))
    assert course.autograde("alice", "bob", "carol") == 0
    results = course.results(["alice", "bob", "carol"])
    cell = {s: r.cell("test_weighted_sum") for s, r in results.items()}
    assert cell["alice"].score == cell["alice"].points > 0
    assert [c.name for c in cell["alice"].checks] == ["the notebook's own tests"]
    assert cell["bob"].score == 0 and "AssertionError" in cell["bob"].checks[0].message
    assert cell["carol"].score == 0
    # the cells graded by hidden graders are unaffected
    assert results["bob"].cell("test_softmax").score == results["bob"].cell("test_softmax").points
