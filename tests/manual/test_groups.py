"""Answer groups: the rules every grouping keeps, purity on a synthetic class, the course's glossary."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gradekit.errors import CourseError
from gradekit.manual import glossary as glossary_mod
from gradekit.manual.groups import EMPTY, group_code, group_numbers, group_texts

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from synth_answers import make_class  # noqa: E402

GLOSSARY = glossary_mod.load(REPO / "autograder" / "self_attention" / "glossary.toml")


def test_empty_and_untouched_answers_form_one_group_first():
    texts = ["YOUR ANSWER HERE", "Q and K decide the weights.", "", "  \n", "在这里写你的回答\n\n", "？",
             "Q and K decide the weights."]
    groups = group_texts(texts, GLOSSARY)
    assert groups[0].kind == EMPTY and sorted(groups[0].members) == [0, 2, 3, 4, 5]
    assert [sorted(g.members) for g in groups[1:]] == [[1, 6]]


def test_copies_share_a_group_and_the_typical_answer_comes_first():
    cls = make_class(300, 5, "tq1_explain")
    texts = [a["text"] for a in cls]
    groups = group_texts(texts, GLOSSARY)
    where = {i: n for n, g in enumerate(groups) for i in g.members}
    for i, t in enumerate(texts):
        for j in range(i):
            if t.strip() and texts[j] == t:
                assert where[i] == where[j]
    assert [len(g.members) for g in groups[1:]] == sorted((len(g.members) for g in groups[1:]), reverse=True)
    assert sorted(i for g in groups for i in g.members) == list(range(len(texts)))


@pytest.mark.parametrize("question", ["tq1_explain", "tq5_explain"])
def test_purity_on_a_synthetic_class_in_english_and_chinese(question):
    """Of the class's answers, at least 95% share the kind of their group's typical answer, and at most 6%
    sit in a group less than 90% pure (groups of a few answers, where one misfit is a large share)."""
    cls = make_class(1000, 3, question)
    groups = group_texts([a["text"] for a in cls], GLOSSARY)
    same = sum(sum(cls[i]["kind"] == cls[g.typical]["kind"] for i in g.members) for g in groups)
    assert same / len(cls) >= 0.95
    impure = 0
    for g in groups:
        share = sum(cls[i]["kind"] == cls[g.typical]["kind"] for i in g.members) / len(g.members)
        impure += len(g.members) if share < 0.9 else 0
    assert impure / len(cls) <= 0.06, impure
    assert len(groups) < 200  # about 125: a grader's decisions, not a thousand


def test_three_thousand_answers_half_in_chinese_are_grouped_each_once():
    """(In how many seconds, beside 1,000: bench/grade.py.)"""
    texts = [a["text"] for a in make_class(3000, 4, "tq1_explain")]
    groups = group_texts(texts, GLOSSARY)
    assert sorted(i for g in groups for i in g.members) == list(range(3000))


def test_without_a_glossary_characters_and_words_decide():
    texts = ["the cost grows with the square of the length", "the cost grows with the square of the length!",
             "linear cost", "it is linear"]
    groups = group_texts(texts)
    assert sorted(map(sorted, (g.members for g in groups))) == [[0, 1], [2], [3]] or len(groups) <= 3


def test_code_is_grouped_by_normalised_tokens():
    sources = ["x = a + b  # add", "total = first + second", "x = a * b", "# YOUR CODE HERE\nraise NotImplementedError()"]
    groups = group_code(sources, stubs_of=["", "", "", "# YOUR CODE HERE\nraise NotImplementedError()"])
    assert groups[0].kind == EMPTY and groups[0].members == [3]
    assert sorted(map(sorted, (g.members for g in groups[1:]))) == [[0, 1], [2]]


def test_numbers_are_grouped_by_the_mistake_they_match():
    verdicts = [("right", ""), ("mistake", "divided by d_k"), ("right", ""), ("mistake", "divided by d_k"),
                ("unexplained", ""), ("mistake", "the lecture's numbers"), ("right", "")]
    groups = group_numbers(verdicts)
    assert [(g.kind, g.label, g.members) for g in groups][:2] == [("right", "", [0, 2, 6]),
                                                                  ("mistake", "divided by d_k", [1, 3])]


def test_a_glossary_is_course_data_with_named_errors(tmp_path):
    assert GLOSSARY.entities >= {"QRY", "KEY", "VAL"} and "WGT" in GLOSSARY.concepts
    bad = tmp_path / "glossary.toml"
    bad.write_text('[[term]]\ntoken = "q"\nmatch = "x"\n')
    with pytest.raises(CourseError, match="upper-case"):
        glossary_mod.load(bad)
    bad.write_text('[[term]]\ntoken = "QRY"\nrole = "boss"\nmatch = "x"\n')
    with pytest.raises(CourseError, match="role"):
        glossary_mod.load(bad)
    bad.write_text('[[term]]\ntoken = "QRY"\nmatch = "(("\n')
    with pytest.raises(CourseError):
        glossary_mod.load(bad)
    assert not glossary_mod.load(tmp_path / "none.toml")
