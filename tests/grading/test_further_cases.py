"""A test that loops over cases stops at its first failure; the harness runs it again past it
(gradekit.grading.harness.cases), and a known mistake is named only when its values are the student's
on two independent inputs -- never from the one case where it coincides with the student's."""

from __future__ import annotations

import pytest

from conftest import ASSIGNMENT, with_solutions
from gradekit.grading.diagnosis import notes
from gradekit.sandbox.bwrap import bwrap_path

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")]

LOOPING = '''"""softmax on tables, several in one test (the first failure stops it)."""

import numpy as np

from gradekit.graders import check

SHAPES = [(1, 4), (3, 4), (2, 5)]


def test_tables(student, reference, rng):
    """softmax of tables"""
    for shape in SHAPES:
        x = rng.normal(size=shape)
        check.array(student.softmax(x), reference.softmax(x), what=f"softmax on {shape}",
                    mistakes=lambda: {"normalised along axis 0": reference.softmax(x, axis=0)})
'''

ONES = "def softmax(x, axis=-1):\n    return np.ones_like(np.asarray(x, dtype=float))\n"
AXIS_0 = ("def softmax(x, axis=-1):\n    x = np.asarray(x, dtype=float)\n"
          "    e = np.exp(x - x.max(axis=0, keepdims=True))\n    return e / e.sum(axis=0, keepdims=True)\n")


def test_a_mistake_is_named_on_two_inputs_and_never_on_a_coincidence(course):
    (course.root / "autograder" / ASSIGNMENT / "test_softmax.py").write_text(LOOPING)
    course.generate("alice", "bob")
    # alice returns ones: on a one-row table that is softmax along axis 0, and on no other table
    course.submit("alice", with_solutions(course.answer_key("alice"), {"softmax": ONES}))
    # bob normalises along axis 0 on every table
    course.submit("bob", with_solutions(course.answer_key("bob"), {"softmax": AXIS_0}))
    assert course.autograde("alice", "bob") == 0
    results = course.results(["alice", "bob"])

    alice = results["alice"].cell("test_softmax")
    assert [c.passed for c in alice.checks] == [False]      # one failed check: the loop stopped at once
    assert alice.diagnosis == [], notes(alice)              # the coincidence of the first table names nothing

    bob = results["bob"].cell("test_softmax")
    assert [c.passed for c in bob.checks] == [False]
    assert bob.diagnosis == ["normalised along axis 0"], notes(bob)
    said = " ".join(notes(bob))
    assert "further cases of the same tests, run past their first failure" in said, said
    assert bob.findings[0].more >= 1 and bob.score == alice.score == 0
