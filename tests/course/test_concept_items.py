"""The concept checks measure knowledge, not test-wiseness (source/self_attention/params_quiz.py).

Three test-wise strategies -- always the longest option, always the shortest,
always the same letter -- play the concept checks of many students' variants
and must score near chance (25% with four options; at most 35% here). The
items themselves: options of comparable length, no "all of the above", and the
right letter spread evenly over students and items.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from gradekit.imports import course_module

PARAMS = Path(__file__).resolve().parents[2] / "source" / "self_attention" / "params_quiz.py"
VARIANTS = 200
CHANCE_CEILING = 0.35


def _load():
    return course_module("params_quiz_under_test", PARAMS)


QUIZ = _load()
ITEMS = [item for seed in range(VARIANTS) for item in QUIZ.generate(np.random.default_rng(seed))["mc"]]
LETTERS = QUIZ.LETTERS


def _score(pick) -> float:
    """The share of all items over all variants a strategy ``pick(options) -> index`` gets right."""
    return sum(LETTERS[pick(item["options"])] == item["answer"] for item in ITEMS) / len(ITEMS)


def _longest(options) -> int:
    return max(range(len(options)), key=lambda i: len(options[i]))   # the first of a tie


def _shortest(options) -> int:
    return min(range(len(options)), key=lambda i: len(options[i]))


def test_enough_variants_and_items():
    assert VARIANTS >= 50 and len(QUIZ.QUESTIONS) >= 4
    assert len(ITEMS) == VARIANTS * len(QUIZ.QUESTIONS)


@pytest.mark.parametrize("strategy", [_longest, _shortest], ids=["always the longest", "always the shortest"])
def test_picking_by_length_scores_near_chance(strategy):
    assert _score(strategy) <= CHANCE_CEILING


@pytest.mark.parametrize("letter", list(LETTERS))
def test_always_the_same_letter_scores_near_chance(letter):
    assert _score(lambda options: LETTERS.index(letter)) <= CHANCE_CEILING


def test_the_right_letter_is_spread_evenly():
    per_letter = Counter(item["answer"] for item in ITEMS)
    for letter in LETTERS:
        assert 0.22 <= per_letter[letter] / len(ITEMS) <= 0.28, per_letter
    # and within every student's notebook: no letter more than its fair share, rounded up
    count = len(QUIZ.QUESTIONS)
    for seed in range(VARIANTS):
        answers = Counter(q["answer"] for q in QUIZ.generate(np.random.default_rng(seed))["mc"])
        assert max(answers.values()) <= math.ceil(count / len(LETTERS)), (seed, answers)
    # every item has its right answer under every letter for some student
    for question in QUIZ.QUESTIONS:
        letters = {item["answer"] for item in ITEMS if item["id"] == question["id"]}
        assert letters == set(LETTERS), (question["id"], letters)


@pytest.mark.parametrize("question", QUIZ.QUESTIONS, ids=[q["id"] for q in QUIZ.QUESTIONS])
def test_options_are_comparable(question):
    options = [question["correct"], *question["wrong"]]
    lengths = [len(o) for o in options]
    assert max(lengths) / min(lengths) <= 1.25, lengths
    for option in options:
        low = option.lower()
        assert not any(cue in low for cue in ("all of the above", "none of the above", "both of the above")), option
    assert len(set(options)) == len(options)
    assert set(question["wrong"]) and all(question["wrong"].values())  # every distractor says what it stands for


def test_the_right_option_is_not_systematically_longest_or_shortest():
    """The right option is strictly the longest in at most one item, strictly the shortest in at most one."""
    longest = shortest = 0
    for question in QUIZ.QUESTIONS:
        right, others = len(question["correct"]), [len(w) for w in question["wrong"]]
        longest += right > max(others)
        shortest += right < min(others)
    assert longest <= 1 and shortest <= 1, (longest, shortest)
