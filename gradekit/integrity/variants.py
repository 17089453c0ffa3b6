"""Evidence from the variants: a submission that carries another student's own numbers.

Every student's numbers are their own, so each of these is evidence without a
similarity threshold; what remains is to rule out coincidence, and the
measure of that is rarity. A value that ``df`` of the class's ``N`` students
have is worth ``log2(N / df)`` bits; a piece of evidence is flagged when its
bits, less ``log2(N)`` for having looked at every other student, reach
:data:`MIN_BITS` (fewer than one chance match in a thousand classes).

* **variant cells**: read-only cells (or their nbgrader checksums) that only
  another student's variant has. No chance can produce these; one is enough.
* **answers**: literal answers that are another student's right answers and
  not the submitter's own (at least two of them).
* **personal numbers**: runs of three of another student's numbers (their
  params, in order) in the answer code or the saved outputs (at least two runs).
* **public numbers** (one student, not a pair): the numbers an assignment
  publishes as its worked example (``source/<assignment>/public_examples.json``)
  hard-coded in an answer cell, unless the student's own numbers contain them.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from gradekit.errors import TemplateError
from gradekit.integrity.material import Handed, Personal, quantise

MIN_BITS = 10.0  # bits beyond chance for answers and personal numbers
CELL_BITS = 20.0  # the strength of one read-only cell from another student's variant
PUBLIC_EXAMPLES = "public_examples.json"


@dataclass(frozen=True)
class PublicExample:
    what: str
    numbers: tuple[int, ...]  # quantised
    shown: tuple[float, ...]


def load_public_examples(source_dir: Path) -> list[PublicExample]:
    """``public_examples.json``: ``{"examples": [{"what": "...", "numbers": [0.25, 0.75]}, ...]}``."""
    path = source_dir / PUBLIC_EXAMPLES
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        examples = []
        for item in data["examples"]:
            numbers = [float(v) for v in item["numbers"]]
            quantised = tuple(quantise(v) for v in numbers)
            if not str(item["what"]).strip() or not numbers or None in quantised:
                raise ValueError("every example needs a 'what' and finite 'numbers'")
            examples.append(PublicExample(str(item["what"]), cast(tuple[int, ...], quantised), tuple(numbers)))
        return examples
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TemplateError(
            f"{path}: not a list of public examples ({type(exc).__name__}: {exc}); "
            'expected {"examples": [{"what": "...", "numbers": [0.25, 0.75]}]}'
        ) from None


def _bits(n: int, dfs) -> float:
    return sum(math.log2(n / df) for df in dfs) - math.log2(max(n, 2))


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def variant_cells(personal: dict[str, Personal], handed: dict[str, Handed]) -> dict[tuple, list[dict]]:
    """Read-only cells, or their checksums, from another student's variant."""
    owners: dict[tuple, list[str]] = defaultdict(list)
    for me in personal.values():
        for key, digest in me.cells.items():
            owners[("cell", key, digest)].append(me.student)
        for key, checksum in me.checksums.items():
            owners[("checksum", key, checksum)].append(me.student)
    found: dict[tuple[str, str], dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for t, mine in handed.items():
        own = personal[t]
        seen = [("cell", key, digest) for key, digest in mine.cells.items() if own.cells.get(key) != digest]
        seen += [("checksum", key, c) for key, c in mine.checksums.items() if own.checksums.get(key) != c]
        for entry in seen:
            who = owners.get(entry, [])
            if len(who) == 1 and who[0] != t:
                found[(who[0], t)][entry[0]].add(entry[1])
    out: dict[tuple, list[dict]] = defaultdict(list)
    for (s, t), kinds in found.items():
        cells = sorted(kinds["cell"] | kinds["checksum"])
        out[_pair(s, t)].append(
            {
                "kind": "variant cells",
                "from": s,
                "by": t,
                "count": len(cells),
                "cells": [f"{nb}/{gid}" for nb, gid in cells],
                "checksums_only": [f"{nb}/{gid}" for nb, gid in sorted(kinds["checksum"] - kinds["cell"])],
                "strength": round(CELL_BITS * len(cells), 1),
            }
        )
    return out


def answers(personal: dict[str, Personal], handed: dict[str, Handed]) -> dict[tuple, list[dict]]:
    """Answers that are another student's right answers, and not the submitter's own."""
    n = len(personal)
    owners: dict[tuple, list[str]] = defaultdict(list)
    for me in personal.values():
        for key, value in me.answers.items():
            owners[(key, value)].append(me.student)
    rare = max(2, n // 20)
    matches: dict[tuple[str, str], list] = {}
    for t, mine in handed.items():
        own = personal[t].answers
        wrong = {key: value for key, value in mine.answers.items() if key in own and own[key] != value}
        # candidates: the students who share at least one rare answer with t (one in twenty or fewer)
        candidates = {
            s
            for key, value in wrong.items()
            if len(owners.get((key, value), ())) <= rare
            for s in owners.get((key, value), ())
        } - {t}
        for s in candidates:
            theirs = personal[s].answers
            matches[(s, t)] = [
                (key, value, len(owners[(key, value)]))
                for key, value in wrong.items()
                if theirs.get(key) == value and len(owners[(key, value)]) < n
            ]
    out: dict[tuple, list[dict]] = defaultdict(list)
    for (s, t), found in _explain(n, matches).items():
        out[_pair(s, t)].append(
            {
                "kind": "answers",
                "from": s,
                "by": t,
                "count": len(found),
                "answers": [f"{nb}/{name}" for (nb, name), _, _ in sorted(found)],
                "strength": round(_bits(n, [df for _, _, df in found]), 1),
            }
        )
    return out


def _explain(n: int, matches: dict[tuple[str, str], list]) -> dict[tuple[str, str], list]:
    """Per submitter, the sources that explain their matches, strongest first.

    A copier's answers (or numbers) equal their source's, and by coincidence
    some of them equal a third student's too: what the strongest source
    explains is no evidence against anyone else. A match is a list of
    (key, value, df) triples.
    """
    by_submitter: dict[str, list] = defaultdict(list)
    for (s, t), match in matches.items():
        by_submitter[t].append((s, match))
    kept = {}
    for t, candidates in by_submitter.items():
        candidates.sort(key=lambda c: (-_bits(n, [df for _, _, df in c[1]]), c[0]))
        explained: set = set()
        for s, match in candidates:
            rest = [(key, value, df) for key, value, df in match if (key, value) not in explained]
            if len(rest) >= 2 and _bits(n, [df for _, _, df in rest]) >= MIN_BITS:
                kept[(s, t)] = rest
                explained.update((key, value) for key, value, _ in rest)
    return kept


def personal_numbers(personal: dict[str, Personal], handed: dict[str, Handed]) -> dict[tuple, list[dict]]:
    """Runs of another student's numbers in the answer code or the saved outputs."""
    n = len(personal)
    owners: dict[tuple, list[str]] = defaultdict(list)
    for me in personal.values():
        for run in me.number_runs:
            owners[run].append(me.student)
    matches: dict[tuple[str, str], dict] = defaultdict(lambda: {"runs": {}, "at": defaultdict(set)})
    for t, mine in handed.items():
        own = personal[t].number_runs
        for where, numbers in mine.numbers.items():
            for i in range(len(numbers) - 2):
                run = tuple(numbers[i : i + 3])
                if run in own:
                    continue
                who = owners.get(run)
                if not who or len(who) * 10 > n + 10:  # shared by a tenth of the class: no one's own
                    continue
                for s in who:
                    if s == t:
                        continue
                    match = matches[(s, t)]
                    match["runs"][run] = len(who)
                    match["at"][run].update((where, i + j) for j in range(3))
    runs = {pair: [(run, None, df) for run, df in m["runs"].items()] for pair, m in matches.items()}
    out: dict[tuple, list[dict]] = defaultdict(list)
    for (s, t), found in _explain(n, runs).items():
        match = matches[(s, t)]
        kept = {run for run, _, _ in found}
        places = {pos for run, positions in match["at"].items() if run in kept for pos in positions}
        out[_pair(s, t)].append(
            {
                "kind": "personal numbers",
                "from": s,
                "by": t,
                "count": len(places),
                "where": sorted({where for where, _ in places}),
                "strength": round(_bits(n, [df for _, _, df in found]), 1),
            }
        )
    return out


def public_numbers(
    examples: list[PublicExample], personal: dict[str, Personal], handed: dict[str, Handed]
) -> list[dict]:
    """The assignment's published example numbers hard-coded in a student's answer cells."""
    found = []
    for t, mine in handed.items():
        own = personal[t].numbers
        for example in examples:
            if _contains(own, example.numbers):
                continue  # the student's own numbers happen to be the example's
            for where, numbers in sorted(mine.numbers.items()):
                if not where.endswith("/outputs") and _contains(numbers, example.numbers):
                    found.append({"student": t, "where": where, "what": example.what, "numbers": list(example.shown)})
    return found


def _contains(sequence: list[int], part: tuple[int, ...]) -> bool:
    k = len(part)
    first = part[0]
    return any(sequence[i] == first and tuple(sequence[i : i + k]) == part for i in range(len(sequence) - k + 1))
