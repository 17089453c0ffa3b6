"""A sample of the mistakes made automatically from the answer keys (tests/graders/mutants.py), graded:
no sentence the engine says of them is false -- recomputed by the verifier on every failed check,
checked against the mutant's own code run here, and on new inputs of the same shapes. The whole set
is bench/mutants.py's."""

from __future__ import annotations

import random

import pytest

from conftest import REPO
from gradekit.sandbox.bwrap import bwrap_path
from mutants import audit, exercise_cells, grade, mutants, verdict

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")]

SAMPLE = 36  # mutants per assignment: about ten seconds of grading each


def _sample(root, assignment: str, seed: int) -> list:
    every = [m for cell, source in exercise_cells(root, assignment).items() for m in mutants(cell, source, assignment)]
    assert len(every) >= 10, f"{assignment}: only {len(every)} mutants"
    return random.Random(seed).sample(every, min(SAMPLE, len(every)))


@pytest.mark.parametrize("assignment", ["self_attention", "multi_head_attention", "long_context"])
def test_no_false_sentence_on_mutants_of_a_shipped_assignment(assignment):
    seed = random.Random(assignment).randrange(1 << 30)  # another sample per assignment, the same every run
    graded = grade(REPO, assignment, _sample(REPO, assignment, seed))
    problems = audit(graded)
    assert not problems, "\n".join(f"{p.mutant} [{p.cell}]: {p.what}" for p in problems)
    kinds = {verdict(g) for g in graded}
    assert kinds & {"named", "said"}, kinds  # the engine says something of mutants, and nothing false


def test_no_false_sentence_on_mutants_of_the_quickstart_course(tmp_path):
    from gradekit.authoring.quickstart import write_course

    root = tmp_path / "course"
    root.mkdir()
    write_course(root, "week1")
    graded = grade(root, "week1", _sample(root, "week1", 20261204))
    problems = audit(graded)
    assert not problems, "\n".join(f"{p.mutant} [{p.cell}]: {p.what}" for p in problems)
