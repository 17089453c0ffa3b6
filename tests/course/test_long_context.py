"""The long-context assignment, graded end to end with its own QA set.

One course holding only ``long_context`` is generated and graded once for the
module (``gradekit autograde --jobs 2``), over several students (seeds):

* every student's answer key              -> full marks on every cell
* every student's untouched release       -> zero on every cell, no grader error
* each file of autograder/long_context/correct/   -> full marks
* each file of autograder/long_context/mistakes/  -> points lost on its own
  exercise only (or on its ``# breaks:`` cells), on every student; the feedback
  contains its ``# names:`` phrase, and no other known mistake is named for it.

A test cell belongs to the solution cell before it in the notebook
(``test_blockwise_score`` to ``blockwise_attention``). Its params are checked
too: every student's block size leaves a shorter last block and makes the
running maximum change, and the thought question's answers reproduce the
lecture's FP16 table.
"""

from __future__ import annotations

import nbformat
import numpy as np
import pytest

from conftest import (QA_SEEDS, REPO, assignment_course, blank_id, graded_qa_set, key_id, own_key, qa_students,
                      submit_as, with_solutions)
from gradekit.grading.diagnosis import notes
from gradekit.imports import course_module
from gradekit.qa import qaset

ASSIGNMENT = "long_context"
NOTEBOOK = "long_context"
POINTS = 20
SEEDS = QA_SEEDS
GRADERS = REPO / "autograder" / ASSIGNMENT
MISTAKES = qaset.files(GRADERS, "mistakes")
CORRECT = qaset.files(GRADERS, "correct")
pytestmark = pytest.mark.e2e  # the whole pipeline: `pytest -m "not e2e"` leaves it out

EXERCISES = {"window_mask", "window_attention", "online_step", "blockwise_attention", "tq1", "concepts"}


_students, _key_id, _blank_id = qa_students, key_id, blank_id


def _params_module():
    return course_module("long_context_params_under_test", REPO / "source" / ASSIGNMENT / "params.py")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return graded_qa_set(tmp_path_factory.mktemp("long") / "course", ASSIGNMENT)


def _lost(result) -> dict[str, float]:
    return {c.grade_id: c.points - (c.score or 0) for nb in result.notebooks for c in nb.cells
            if (c.score or 0) < c.points - 1e-9}


def _failed(result, grade_id):
    return [k for k in result.cell(grade_id).checks if not k.passed]


# -- the assignment ---------------------------------------------------------------------

def test_every_test_cell_has_a_grader_and_points_add_up(graded):
    _, results, _, owners = graded
    tests = {t for ts in owners.values() for t in ts}
    assert tests == {p.stem for p in GRADERS.glob("test_*.py")}
    assert set(owners) == EXERCISES
    assert owners["blockwise_attention"] == ["test_blockwise_attention", "test_blockwise_score"]
    assert all(owners.values())
    assert results[_key_id(SEEDS[0])].possible == POINTS


def test_students_have_different_numbers(graded):
    course, _, _, _ = graded
    setups = set()
    for seed in SEEDS:
        nb = nbformat.read(str(course.root / "release" / _blank_id(seed) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
                           as_version=4)
        setups.add(tuple(c.source for c in nb.cells
                         if c.metadata.get("nbgrader", {}).get("grade_id") in ("setup", "questions_setup")))
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
    # the function-argument exercise, unanswered, names the student's function, not a helper
    assert "`blockwise_attention` is not implemented yet" in messages
    assert "no answer given" in messages


# -- its QA set -------------------------------------------------------------------------

def test_qa_set_is_complete():
    """At least two mistakes per exercise, and three right answers written differently."""
    assert len(CORRECT) >= 3
    assert all(qaset.parse(p)[0] for p in MISTAKES), "every mistake names what its feedback must say"
    assert not any(qaset.parse(p)[0] for p in CORRECT), "a right answer has no names line"
    assert not any(p.name.startswith("test_") for p in MISTAKES + CORRECT)  # never collected as graders
    per_exercise = {gid: sum(gid in qaset.parse(p)[2] for p in MISTAKES) for gid in EXERCISES}
    assert min(per_exercise.values()) >= 2, per_exercise


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


def test_the_whole_table_is_caught_by_the_counting_score_function(graded):
    """Right numbers from a full n_q × n_k table: only the grader's own score function, which counts
    the keys of every call the student's loop makes back to it, tells it from a blockwise loop."""
    _, results, by_file, _ = graded
    for student in by_file["blockwise_whole_table"]:
        failed = _failed(results[student], "test_blockwise_score")
        assert [k.name for k in failed] == ["the score function never receives more than one block of keys"]
        assert "one call of score received" in failed[0].message
        assert not _failed(results[student], "test_blockwise_attention")


# -- hostile callers of the grader's score function ------------------------------------------------

# blockwise_attention written to harm the grader: the score function it is given is the grader's
# (it runs in the grader's process); what each does, and what its feedback says
HOSTILE = {
    "floods": ("""
def blockwise_attention(Q, K, V, block, score):
    while True:                       # the grader's score, called back without end, failures swallowed
        try:
            score(Q, K[:block])
        except Exception:
            pass
""", "more than 10000 times in one call"),
    "huge": ("""
def blockwise_attention(Q, K, V, block, score):
    big = np.zeros((2000, 1000))      # 15 MiB of arguments
    return score(big, big)
""", "MiB of arguments in one call, more than the 4 MiB allowed"),
    "table": ("""
def blockwise_attention(Q, K, V, block, score):
    rows = np.ones((20000, 2))        # 0.6 MiB of arguments, a 3 GiB table of scores
    return score(rows, rows)
""", "needed more than 1024 MiB for what it passed"),
    "nested_object": ("""
class Box:
    pass

def blockwise_attention(Q, K, V, block, score):
    return score([{"q": [Box()]}], K)
""", "not your objects"),
}
BLOCKWISE = {"test_blockwise_attention", "test_blockwise_score"}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    course = assignment_course(tmp_path_factory.mktemp("hostile") / "course", ASSIGNMENT, HOSTILE)
    for student, (source, _) in HOSTILE.items():
        submit_as(course, ASSIGNMENT, student, with_solutions(own_key(course, ASSIGNMENT, student),
                                                               {"blockwise_attention": source}))
    assert course.cli("autograde", ASSIGNMENT, "--jobs", "2") == 0
    from gradekit.results import iter_results

    return {r.student: r for r in iter_results(course.course, ASSIGNMENT, list(HOSTILE))}


@pytest.mark.parametrize("student", list(HOSTILE))
def test_a_hostile_caller_of_the_graders_function_loses_its_exercise_only(hostile, student):
    """Each is stopped by a callback limit (or refused its own objects): its two blockwise cells
    score zero, with one line naming what it did -- the student's failure, never a grader error --
    and every other exercise of the hand-in is graded as the answer key it otherwise is."""
    result = hostile[student]
    assert result.error is None and result.notebooks[0].error is None
    assert set(_lost(result)) == BLOCKWISE
    said = []
    for cell in result.notebooks[0].cells:
        if cell.grade_id in BLOCKWISE:
            assert cell.score == 0
            messages = [k.message for k in cell.checks if not k.passed]
            assert messages and all("\n" not in m and "could not check" not in m for m in messages), messages
            said += messages
        else:
            assert cell.score == cell.points, (cell.grade_id, [k.message for k in cell.checks])
    # (the loop of floods also hangs on its own scaled_dot, which runs in the sandbox: a timeout, after
    # which its later checks are not run)
    assert any(HOSTILE[student][1] in m for m in said), said


# -- its params ---------------------------------------------------------------------------

PARAMS = _params_module()
VARIANTS = [PARAMS.generate(np.random.default_rng(seed)) for seed in range(200)]


def test_every_variant_ends_with_a_shorter_block_and_moves_the_maximum():
    """The visible checks on a student's own numbers can show the partial-block and rescaling mistakes."""
    for p in VARIANTS:
        n, block = p["n"], p["block"]
        assert n % block, (n, block)
        s = np.array(p["Q"]) @ np.array(p["K"]).T / np.sqrt(p["d_k"])
        first, later = s[:, :block].max(axis=1), s[:, block:].max(axis=1)
        assert (later > first).sum() >= 2 and (later < first).sum() >= 2
        assert 1 <= p["w"] < n


@pytest.mark.parametrize("n, mb", [(512, 0.5), (4096, 32), (32768, 2 * 1024), (131072, 32 * 1024)])
def test_the_memory_answers_reproduce_the_lectures_table(n, mb):
    """The lecture's FP16 table (MB and GB of 2^20 and 2^30 bytes): the answer key's formula gives it."""

    class Drawn:   # a generator that draws the lecture's n, a memory of 32 GB and blocks of 128
        def integers(self, low, high):
            return n // 512 if high == 257 else 32

        def choice(self, options):
            return 128

    key = PARAMS._memory(Drawn())["key"]
    assert key["tq1_mb"] == pytest.approx(mb)
    assert key["tq1_max_n"] == pytest.approx(131072)            # 32 GB hold the table of 128K tokens
    assert key["tq1_block_mb"] == pytest.approx(2 * n * 128 / 2 ** 20)


def test_the_thought_question_varies_enough():
    """A classmate's right memory answer is rarely another student's (gradekit check's variant diversity)."""
    for name in ("tq1_mb", "tq1_max_n", "tq1_block_mb"):
        values = [p["key"][name] for p in VARIANTS]
        pairs = sum(abs(a - b) <= 0.01 * abs(b) for i, a in enumerate(values) for b in values[i + 1:])
        assert pairs / (len(values) * (len(values) - 1) / 2) < 0.05, name
