"""gradekit.qa.items: the guessing row fails an assignment whose items a test-wise student beats,
never one whose letters fell unevenly by chance (judged by the binomial tail, as the diversity row)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from gradekit.qa import items
from gradekit.qa.stats import binomial_tail, chance_tail

OPTIONS = ["one", "two", "three", "four"]


def _variants(answers: list[list[str]]) -> dict:
    """One variant per student, each with its concept checks' right letters."""
    return {f"qa{i:03d}": SimpleNamespace(params={"mc": [{"options": OPTIONS, "answer": a} for a in letters]})
            for i, letters in enumerate(answers)}


def test_uniform_letters_that_fell_unevenly_pass():
    """The issue's case: two concept checks, five students, "always D" right on 4 of 10 (40%, chance
    25%): chance alone does as well about one run in five."""
    answers = [["D", "A"], ["B", "D"], ["C", "D"], ["A", "B"], ["D", "C"]]
    (row,) = items.testwise_rows(_variants(answers))
    assert row.ok is True, row.detail
    assert "best strategy always D 40%" in row.detail and "22% of the time" in row.detail


def test_a_generator_that_favours_a_letter_fails():
    rng = np.random.default_rng(0)
    answers = [["D" if rng.random() < 0.7 else "ABC"[rng.integers(3)] for _ in range(6)] for _ in range(20)]
    (row,) = items.testwise_rows(_variants(answers))
    assert row.ok is False and row.detail.startswith("always D: "), row.detail


def test_uniform_letters_pass_whatever_the_seed_nearly_always():
    """Over 200 random classes drawn fairly, the row fails at most a few (SIGNIFICANCE shared over the
    strategies: about 1%), where a margin alone failed about one in five."""
    rng = np.random.default_rng(1)
    failed = sum(not items.testwise_rows(_variants([list(rng.choice(list("ABCD"), 2)) for _ in range(5)]))[0].ok
                 for _ in range(200))
    assert failed <= 4, failed


def test_the_tail_of_items_with_equal_chances_is_the_binomial():
    assert abs(chance_tail(4, [0.25] * 10) - binomial_tail(4, 10, 0.25)) < 1e-12
    assert abs(chance_tail(0, [0.2, 0.5]) - 1.0) < 1e-12 and abs(chance_tail(2, [0.2, 0.5]) - 0.1) < 1e-12
