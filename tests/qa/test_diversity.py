"""gradekit check's new rows, their pieces: what a mistake's feedback is, which cells are answers to
questions, and when a shared answer is significantly shared (the whole check: tests/qa/test_run.py)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from gradekit.notebook.answers import value_answers
from gradekit.qa.diversity import SHARED, SIGNIFICANCE
from gradekit.qa.feedback import feedback_class
from gradekit.qa.stats import beyond_chance, binomial_tail
from gradekit.qa.simulate import QAFile
from gradekit.results import CellResult, Check, Relation


def _file(names=None) -> QAFile:
    return QAFile(Path("mistakes/x.py"), "mistakes", names, ["test_f"], {"f": "..."})


def _cell(*checks, relations=(), diagnosis=()) -> dict:
    return {"test_f": CellResult("test_f", 2, 0.0, list(checks), diagnosis=list(diagnosis), relations=list(relations))}


BARE = Check("a", False, "f: 4 of 4 values differ", differs=[["f", 4, 4]], tolerance=[1e-5, 1e-6])


def test_named_related_bare_missed():
    assert feedback_class(_file("halved"), _cell(BARE, diagnosis=["halved the scores"])) == "named"
    assert feedback_class(_file(), _cell(BARE, relations=[Relation("", "function", ["log"])])) == "related"
    assert feedback_class(_file(), _cell(BARE, Check("b", False, "f: shape (2,), expected shape (3,)"))) == "related"
    assert feedback_class(_file(), _cell(BARE, BARE)) == "bare"
    kept = {"test_f": CellResult("test_f", 2, 2.0, [Check("a", True)])}
    assert feedback_class(_file(), kept) == "missed"


def test_answers_to_questions_are_the_cells_that_define_no_function():
    nb = nbformat.v4.new_notebook()
    for gid, source, solution in (("f", "def f(x):\n    return x", True), ("test_f", "assert f(1) == 1", False),
                                  ("q1", "q1_mean = 2.5\nq1_word = 'no'", True), ("test_q1", "pass", False),
                                  ("notes", "x = 1", True)):
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["nbgrader"] = {"grade_id": gid, "solution": solution, "grade": not solution,
                                     "locked": not solution, "points": 0 if solution else 1}
        nb.cells.append(cell)
    assert value_answers({"nb": nb}) == ["q1"]      # "notes" has no test cell after it


def test_a_share_is_flagged_only_when_chance_cannot_explain_it():
    def shared(right, pairs):
        return beyond_chance(right, pairs, SHARED, SIGNIFICANCE)

    assert shared(120, 120) and shared(3, 3)         # the same for everyone, on three students already
    assert shared(14, 100)                           # 14% of 100 pairs: more than 5%, surely
    assert shared(11, 120) and not shared(10, 120)   # twenty students (120 pairs): as the Wilson bound it replaced
    assert not shared(2, 20)                         # 10% of a small sample: not surely
    # one coincidence among three students (three pairs) is a third of them, yet a 5% share gives as
    # many one time in seven; two students who agree, one time in twenty: neither tells
    assert binomial_tail(1, 3, SHARED) == pytest.approx(0.142625)
    assert not shared(1, 3) and not shared(1, 1) and not shared(0, 0)
    assert shared(2, 3)


def test_a_multiple_choice_answer_is_flagged_only_beyond_what_chance_explains():
    # four options (chance 25%) plus the 5% allowed: 2 students who agree are likely by chance alone
    assert binomial_tail(2, 2, 0.30) == pytest.approx(0.09)
    assert binomial_tail(2, 2, 0.30) > 0.01
    assert binomial_tail(120, 120, 0.30) < 1e-50          # a class that always agrees: the same key
    assert binomial_tail(30, 120, 0.30) > 0.5              # 25% of 120 pairs: chance
    assert binomial_tail(60, 120, 0.30) < 0.01             # 50% of 120 pairs: more than chance
    assert binomial_tail(0, 10, 0.3) == pytest.approx(1.0)


def test_a_grader_of_multiple_choice_items_is_seen_from_its_text(tmp_path):
    from gradekit.qa.items import choice_graders

    params = {"mc": [{"id": "mc_cost", "options": ["a", "b", "c"], "answer": "B"}], "n": 3}
    (tmp_path / "test_concepts.py").write_text("def test(student, params):\n    check.option(student['x'], i, what='x')\n")
    (tmp_path / "test_mine.py").write_text("from gradekit.graders.check import option\n\ndef test(s):\n    option(s, i, what='q')\n")
    (tmp_path / "test_named.py").write_text("IDS = ['mc_cost']\n")
    (tmp_path / "test_numbers.py").write_text("def test(s):\n    check.scalar(s['mc_costly'], 1.0, what='n')\n")
    tests = ["test_concepts", "test_mine", "test_named", "test_numbers", "test_gone"]
    assert choice_graders(tmp_path, params, tests) == {
        "test_concepts": "it calls check.option",
        "test_mine": "it calls check.option",
        "test_named": "it names the params' multiple-choice items",
    }
