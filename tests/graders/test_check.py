"""gradekit.graders.check: answers that are not numbers -- yes/no, words, options -- and what a wrong
one is told: what the student answered, to what, never the right answer."""

from __future__ import annotations

import numpy as np
import pytest

from gradekit.errors import Mismatch
from gradekit.graders import check

ITEM = {"id": "mc_scaling", "question": "Why divide by sqrt(d_k)?",
        "options": ["to keep the scores' variance near 1", "to make the weights sum to 1", "to save memory"],
        "answer": "A", "why": {"to make the weights sum to 1": "the softmax already makes them sum to 1",
                               "to save memory": "dividing costs as much memory as it saves"}}


@pytest.mark.parametrize("answer", [False, "no", " No ", "n", "false", 0, np.bool_(False), "否", "不会", "错"])
def test_a_yes_no_question_takes_true_false_and_the_words_for_them(answer):
    check.choice(answer, False, what="tq1_changes")


@pytest.mark.parametrize("answer, shown", [(True, "True"), ("yes", "“yes”"), (1, "1")])
def test_a_wrong_yes_no_says_what_was_answered_and_to_what_never_the_right_answer(answer, shown):
    with pytest.raises(Mismatch) as failed:
        check.choice(answer, False, what="tq1_changes", asked="does W_v change the weights?",
                     mistakes={"W_v only enters the output": True})
    message = str(failed.value)
    assert message == f"tq1_changes: you answered {shown} to “does W_v change the weights?”: that is not right"
    assert "False" not in message and "no" not in message.replace("not right", "")
    assert failed.value.candidates == ["W_v only enters the output"]


def test_an_answer_that_is_no_yes_or_no_says_so():
    with pytest.raises(Mismatch, match="you answered “maybe”, which is neither True nor False"):
        check.choice("maybe", True, what="tq2")
    with pytest.raises(Mismatch, match="tq2: no answer given"):
        check.choice(None, True, what="tq2")
    assert [check.truth(v) for v in (True, "Yes.", "是", 2, "perhaps", None)] == [True, True, True, None, None, None]


def test_a_word_answer_compares_without_case_and_spaces():
    check.choice("  Row  Wise ", "row wise", what="q")
    with pytest.raises(Mismatch) as failed:
        check.choice("column", "row wise", what="q")
    assert str(failed.value) == "q: you answered “column”: that is not right"


@pytest.mark.parametrize("answer", ["A", "a", " a ", "to keep the scores' variance near 1", "TO KEEP THE SCORES' VARIANCE NEAR 1"])
def test_an_option_is_a_letter_or_its_text(answer):
    check.option(answer, ITEM, what="mc_scaling")


def test_a_wrong_option_is_the_misconception_it_stands_for_never_the_right_option():
    with pytest.raises(Mismatch) as failed:
        check.option("b", ITEM, what="mc_scaling")
    assert str(failed.value) == "mc_scaling: you chose B -- the softmax already makes them sum to 1"
    assert failed.value.mistake == "the softmax already makes them sum to 1"
    assert failed.value.ruled_out == ["dividing costs as much memory as it saves"]
    assert "variance" not in str(failed.value)
    with pytest.raises(Mismatch, match=r"you answered “E”, which is none of the options A, B, C"):
        check.option("E", ITEM, what="mc_scaling")
    plain = {**ITEM, "why": {}, "answer": 0}
    with pytest.raises(Mismatch, match="^mc_scaling: you chose C, which is not right$"):
        check.option("to save memory", plain, what="mc_scaling")
