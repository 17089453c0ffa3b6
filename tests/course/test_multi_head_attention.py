"""The multi-head attention assignment, graded end to end with its own QA set.

One course holding only ``multi_head_attention`` is generated and graded once
for the module (``gradekit autograde --jobs 2``), over several students (seeds):

* every student's answer key              -> full marks on every cell
* every student's untouched release       -> zero on every cell, no grader error
* each file of autograder/multi_head_attention/correct/   -> full marks
* each file of autograder/multi_head_attention/mistakes/  -> points lost on its
  own exercise only (or on its ``# breaks:`` cells), on every student; the
  feedback contains its ``# names:`` phrase, and no other known mistake is
  named for it.

A test cell belongs to the solution cell before it in the notebook
(``test_attention_masked`` to ``attention``, ``test_decode_step`` to ``kv_cache``).
"""

from __future__ import annotations

import nbformat
import pytest

from conftest import QA_SEEDS, REPO, blank_id, graded_qa_set, key_id, qa_students
from gradekit.qa import qaset
from gradekit.grading.diagnosis import notes

ASSIGNMENT = "multi_head_attention"
NOTEBOOK = "multi_head_attention"
POINTS = 26
SEEDS = QA_SEEDS
GRADERS = REPO / "autograder" / ASSIGNMENT
MISTAKES = qaset.files(GRADERS, "mistakes")
CORRECT = qaset.files(GRADERS, "correct")

pytestmark = pytest.mark.e2e  # the whole pipeline: `pytest -m "not e2e"` leaves it out


_students, _key_id, _blank_id = qa_students, key_id, blank_id


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return graded_qa_set(tmp_path_factory.mktemp("mha") / "course", ASSIGNMENT)


def _lost(result) -> dict[str, float]:
    return {c.grade_id: c.points - (c.score or 0) for nb in result.notebooks for c in nb.cells
            if (c.score or 0) < c.points - 1e-9}


def _failed(result, grade_id):
    return [k for k in result.cell(grade_id).checks if not k.passed]


# -- the assignment ---------------------------------------------------------------------

def test_every_test_cell_has_a_grader_and_points_add_up(graded):
    course, results, _, owners = graded
    tests = {t for ts in owners.values() for t in ts}
    assert tests == {p.stem for p in GRADERS.glob("test_*.py")}
    assert set(owners) == {"causal_mask", "attention", "split_heads", "merge_heads", "multi_head_attention",
                           "kv_cache", "tq1", "tq2", "tq3"}
    assert all(owners.values())
    assert results[_key_id(SEEDS[0])].possible == POINTS


def test_students_have_different_numbers(graded):
    course, _, _, _ = graded
    setups = set()
    for seed in SEEDS:
        nb = nbformat.read(str(course.root / "release" / _blank_id(seed) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
                           as_version=4)
        setups.add(next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup"))
    assert len(setups) == len(SEEDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_answer_key_gets_full_marks(graded, seed):
    _, results, _, _ = graded
    result = results[_key_id(seed)]
    assert result.error is None
    assert _lost(result) == {}, {g: [k.message for k in _failed(result, g)] for g in _lost(result)}
    assert result.score == POINTS
    nb = result.notebooks[0]
    assert nb.runs and all(run.ok for run in nb.runs), nb.runs


@pytest.mark.parametrize("seed", SEEDS)
def test_untouched_release_gets_zero_without_grader_errors(graded, seed):
    _, results, _, owners = graded
    result = results[_blank_id(seed)]
    assert result.error is None and result.notebooks[0].error is None
    assert result.possible == POINTS and result.score == 0
    cells = result.notebooks[0].cells
    assert {c.grade_id for c in cells} == {t for ts in owners.values() for t in ts}
    for cell in cells:
        assert cell.score == 0 and cell.checks and not any(k.passed for k in cell.checks), cell.grade_id
        for check in cell.checks:
            assert check.message and "could not check" not in check.message, (cell.grade_id, check.message)
    messages = " ".join(k.message for c in cells for k in c.checks)
    assert "not implemented" in messages and "no answer given" in messages


# -- its QA set -------------------------------------------------------------------------

def test_qa_set_is_complete():
    assert len(MISTAKES) >= 12 and len(CORRECT) >= 3
    assert all(qaset.parse(p)[0] for p in MISTAKES), "every mistake names what its feedback must say"
    assert not any(qaset.parse(p)[0] for p in CORRECT), "a right answer has no names line"
    assert not any(p.name.startswith("test_") for p in MISTAKES + CORRECT)  # never collected as graders


@pytest.mark.parametrize("path", CORRECT, ids=[p.stem for p in CORRECT])
def test_alternative_correct_answer_keeps_full_marks(graded, path):
    _, results, by_file, owners = graded
    _, _, sections = qaset.parse(path)
    assert set(sections) <= set(owners)
    for student in by_file[path.stem]:
        result = results[student]
        assert result.error is None
        assert _lost(result) == {}, (student, {g: [k.message for k in _failed(result, g)] for g in _lost(result)})


@pytest.mark.parametrize("path", MISTAKES, ids=[p.stem for p in MISTAKES])
def test_mistake_loses_points_on_its_exercise_and_is_named(graded, path):
    _, results, by_file, owners = graded
    names, breaks, sections = qaset.parse(path)
    assert set(sections) <= set(owners), f"# %% names no solution cell: {set(sections) - set(owners)}"
    tests = {t for ts in owners.values() for t in ts}
    assert set(breaks) <= tests, f"# breaks: names no test cell: {set(breaks) - tests}"
    expected = set(breaks) or {t for gid in sections for t in owners[gid]}
    lost_anywhere: set[str] = set()
    for student in by_file[path.stem]:
        result = results[student]
        assert result.error is None and result.notebooks[0].error is None, (student, result.error)
        lost = _lost(result)
        lost_anywhere |= set(lost)
        assert lost, f"{student}: the mistake went unnoticed"
        assert set(lost) <= expected, \
            f"{student}: lost points outside {sorted(expected)}: { {g: lost[g] for g in set(lost) - expected} }"
        failed = [k for gid in lost for k in _failed(result, gid)]
        # named: in the cell's diagnosis (weighed over its checks), or in a check's own message
        told = [k.message for k in failed] + [n for gid in lost for n in notes(result.cell(gid))]
        assert any(names in t for t in told), (student, names, told[:4])
        others = {r for c in result.notebooks[0].cells for f in c.findings if not any(names in x for x in f.mistakes)
                  for r in f.mistakes}
        assert not others, f"{student}: another known mistake was named: {others}"
    if breaks:
        assert lost_anywhere == set(breaks), f"# breaks: {breaks}, but over every seed it lost {sorted(lost_anywhere)}"
