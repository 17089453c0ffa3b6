"""Mistakes no catalogue knows: what their feedback says (the relation families at work).

The sets are ``uncatalogued/<assignment>/`` (see ``uncatalogued_set``): mistakes
that no grader's ``mistakes=`` and no QA file knows, and unusual right answers,
each graded on VARIANTS simulated students' variants, packed as ``gradekit
check`` packs them. For every mistake:

* it loses points on its own exercise's test cells on every variant, and no
  cell outside its submission's mistakes loses any;
* no name is given, anywhere, on any variant: none of them is a known mistake;
* no hidden value reaches the feedback (the LeakScan stage);

every right answer keeps full marks on every variant, with no name; and over
the sets, at most 5% of the mistakes get bare feedback (only "values differ",
the file's most frequent verdict over its variants).
"""

from __future__ import annotations

import pytest

from conftest import REPO
from gradekit.course import Course
from gradekit.sandbox.bwrap import bwrap_path
from uncatalogued_set import HERE, VARIANTS, assignments, grade

pytestmark = [pytest.mark.e2e, pytest.mark.slow,
              pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")]

BARE_SHARE = 0.05


@pytest.fixture(scope="module")
def graded():
    return [g for assignment in assignments() for g in grade(assignment)]


def test_every_shipped_assignment_has_a_set():
    missing = [a for a in Course.load(REPO).assignments() if not (HERE / a).is_dir()]
    assert not missing, f"no uncatalogued set for {missing}: write tests/graders/uncatalogued/<assignment>/"


def test_the_sets_are_large_enough(graded):
    mistakes = [g for g in graded if g.family != "correct"]
    assert len(mistakes) >= 60 and len(graded) - len(mistakes) >= 8
    for assignment in assignments():
        assert sum(g.assignment == assignment for g in mistakes) >= 10, assignment
    assert all(len(g.verdicts) == VARIANTS for g in graded)


def test_every_mistake_is_caught_on_its_own_exercise_only_and_never_named(graded):
    problems = []
    for g in graded:
        if g.family == "correct":
            continue
        for v in g.verdicts:
            if v.kept:
                problems.append(f"{g.label}: kept full marks")
            if v.elsewhere:
                problems.append(f"{g.label}: points lost elsewhere: {sorted(v.elsewhere)}")
            if v.names:
                problems.append(f"{g.label}: named {v.names}")
            if v.leaks:
                problems.append(f"{g.label}: leaked {v.leaks[:2]}")
    assert not problems, "\n".join(problems)


def test_every_unusual_right_answer_keeps_its_points(graded):
    problems = [f"{g.label}: {v.kind} {sorted(v.elsewhere)} {v.names}" for g in graded if g.family == "correct"
                for v in g.verdicts if v.kind != "kept" or v.elsewhere or v.names]
    assert not problems, "\n".join(problems)


def test_at_most_a_twentieth_get_bare_feedback(graded):
    mistakes = [g for g in graded if g.family != "correct"]
    bare = [g.label for g in mistakes if g.kind == "bare"]
    assert len(bare) <= BARE_SHARE * len(mistakes), bare
