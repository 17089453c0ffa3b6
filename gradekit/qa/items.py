"""Multiple-choice items against test-wise guessing: always the longest option, always the
shortest, always the same letter -- each must score near chance.

An assignment's params declare its items the way its graders read them: any
list in the params whose entries have ``options`` (two or more texts) and
``answer`` (the right option's letter, ``"A"``..., or its index) is a list of
items, e.g. ``{"mc": [{"id": "q1", "options": [...], "answer": "C"}, ...]}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from gradekit.qa.rows import Row

LETTERS = "ABCDEFGHIJ"
MARGIN = 0.10  # above chance that a strategy may score: 35% with four options ...
SIGNIFICANCE = 0.01  # ... unless chance alone does as well more often than this (over all strategies)


def items_of(params: dict) -> list[dict]:
    found = []

    def walk(value: Any) -> None:
        if isinstance(value, list):
            if value and all(_is_item(v) for v in value):
                found.extend(value)
                return
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            if _is_item(value):
                found.append(value)
                return
            for v in value.values():
                walk(v)

    walk(params)
    return found


def choice_graders(graders: Path, params: dict, tests: Iterable[str]) -> dict[str, str]:
    """The test cells (of ``tests``) whose hidden graders grade multiple-choice items, by how that
    shows: the grader calls ``check.option``, or names an item of the params by its ``id`` -- read
    from the graders' text, so that a cell left out of ``choice_cells`` is still seen."""
    ids = {str(item["id"]) for item in items_of(params) if isinstance(item.get("id"), str) and item["id"]}
    found: dict[str, str] = {}
    for test in tests:
        path = graders / f"{test}.py"
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if _OPTION.search(text):
            found[test] = "it calls check.option"
        elif any(f'"{i}"' in text or f"'{i}'" in text for i in ids):
            found[test] = "it names the params' multiple-choice items"
    return found


_OPTION = re.compile(r"(?<![\w.])(check\.)?option\(")


def _is_item(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("options"), list)
        and len(value["options"]) >= 2
        and all(isinstance(o, str) for o in value["options"])
        and _answer_index(value) is not None
    )


def _answer_index(item: dict) -> int | None:
    answer = item.get("answer")
    if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(item["options"]):
        return answer
    if isinstance(answer, str) and len(answer) == 1 and answer.upper() in LETTERS[: len(item["options"])]:
        return LETTERS.index(answer.upper())
    return None


def strategy_scores(items: Iterable[dict]) -> tuple[dict[str, float], float, int]:
    """Each strategy's share of items right, chance, and the number of items."""
    items = list(items)
    if not items:
        return {}, 0.0, 0
    scores = {name: hits / len(items) for name, hits in strategy_hits(items).items()}
    chance = sum(1 / len(i["options"]) for i in items) / len(items)
    return scores, chance, len(items)


def strategy_hits(items: list[dict]) -> dict[str, int]:
    """How many of ``items`` each test-wise strategy gets right."""
    width = max(len(i["options"]) for i in items)
    picks: dict[str, Callable[..., int]] = {
        "always the longest option": lambda o: max(range(len(o)), key=lambda k: len(o[k])),
        "always the shortest option": lambda o: min(range(len(o)), key=lambda k: len(o[k])),
    }
    for k in range(width):
        picks[f"always {LETTERS[k]}"] = lambda o, k=k: k
    return {name: sum(pick(i["options"]) == _answer_index(i) for i in items) for name, pick in picks.items()}


def testwise_rows(variants: dict, language: str = "en", translate=None) -> list:
    """The row for the items of these variants, with their options as a student of ``language``
    reads them (``translate``: that language's gettext function): an option's length is what a
    test-wise student sees. A strategy fails the row when it scores more than MARGIN above chance
    and chance alone would score as well less than SIGNIFICANCE of the time (the binomial tail,
    shared among the strategies): on ten items, 40% for "always D" happens one run in five."""
    from gradekit.qa.stats import chance_tail

    items = [item for v in variants.values() for item in items_of(v.params)]
    title = "multiple-choice items vs test-wise guessing" + ("" if language == "en" else f" ({language})")
    if not items:
        return [Row(title, None, "no items in the params")]
    if translate is not None:
        items = [{**item, "options": [translate(o) for o in item["options"]]} for item in items]
    hits = strategy_hits(items)
    chances = [1 / len(i["options"]) for i in items]
    chance, n = sum(chances) / len(items), len(items)
    tails = {name: chance_tail(k, chances) for name, k in hits.items()}
    bad = [
        f"{name}: {k / n:.0%} (chance alone does as well {tails[name]:.1%} of the time)"
        for name, k in hits.items()
        if k / n > chance + MARGIN and tails[name] < SIGNIFICANCE / len(hits)
    ]
    worst = max(hits, key=hits.__getitem__)
    return [
        Row(
            title,
            not bad,
            "; ".join(bad) + f" (chance {chance:.0%}, {n} items)"
            if bad
            else f"best strategy {worst} {hits[worst] / n:.0%}, chance {chance:.0%}, {n} items over "
            f"{len(variants)} variants (chance alone does as well {tails[worst]:.0%} of the time)",
        )
    ]
