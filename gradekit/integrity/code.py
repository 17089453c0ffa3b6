"""Evidence from the code: answer cells that share rare fingerprints.

The fingerprints of every answer cell (see :mod:`.fingerprints`; the stub
and the reference solution already removed) go into one index, fingerprint
-> the cells that have it. The first test walks only the index, never every
pair of students: a fingerprint that ``df`` students have adds to the
``df·(df-1)/2`` pairs among them, and nothing else is compared. The second
test (below) compares every pair of the students who answered a cell, as
one matrix product.

Rarity, as MOSS and JPlag discount base code:

* a fingerprint in more than :data:`MAX_SHARE` of the class (or in more than
  :data:`MAX_DF` submissions) is common code, no evidence, and not indexed;
* any other fingerprint shared by ``df`` of the ``N`` students is worth
  ``log2(N / df)`` bits (how surprising it is in this class), split among the
  ``df - 1`` others each holder shares it with: a passage only the two have
  weighs ``log2(N / 2)``, one that three have half of ``log2(N / 3)``. The
  class size matters: two students of 30 sharing a passage is less telling
  than two of 1,000.

Two cells are a copy when they share at least :data:`MIN_SHARED` indexed
fingerprints (less is too little code to judge: three canonical lines) and
the weight of what they share, times the share of the smaller cell's
indexed fingerprints it covers, reaches :data:`MIN_SCORE`. The product asks
for both: rare material, and most of a cell (a long cell that happens to
share a few rare lines with another is no copy).

That test weakens as a class grows: in a class of 1,000, each way of writing
a step of an exercise is shared by dozens, so a long answer copied whole may
hold few fingerprints rare enough to index, and those few are split many
ways. So a second test looks at the same answer cell of every two students
as a whole (:func:`_nearly_whole_cells`): every fingerprint that is not
common (``df``, the students whose same cell has it, at most MAX_SHARE of
the class) counts at its full ``log2(N / df)`` bits, and two cells are a copy
when one holds at least :data:`NEARLY_WHOLE` of the other's weight and the
weight they share, times that share, is at least :data:`MIN_WHOLE` times
``log2(N)`` (about that many fingerprints only the two have). Honest answers
agree step by step, rarely on a whole long cell: no honest pair scored above
17.2 in 18 simulated classes (six seeds each of 40, 200 and 1,000 students'
answers as tests/integrity_code.py writes them).

A pair of students is flagged when one of their cells is a copy by either
test; its strength is the sum of the scores of the cells that are (scores
scaled so that either test's threshold is :data:`MIN_SCORE`).

The thresholds were set on 17 synthetic classes of 33 to 250 students
(tests/integrity_class.py), in which they flag no honest pair;
``bench/integrity.py`` measures precision and recall on others.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations

import numpy as np

from gradekit.integrity.material import Handed, Key

MAX_SHARE = 0.2  # fingerprints in more than this share of the class are common code
MAX_DF = 20  # ... and so are those in more submissions than this, however large the class
MIN_SCORE = 40.0  # shared weight (bits) x containment that makes two cells a copy
MIN_SHARED = 20  # shared indexed fingerprints: fewer is too little code to judge
NEARLY_WHOLE = 0.75  # the second test: share of the smaller cell's weight the other holds...
MIN_WHOLE = 20.0  # ... and shared weight x that share, in units of log2(class size)


def code_evidence(handed: dict[str, Handed]) -> tuple[dict[tuple[str, str], list[dict]], dict[tuple, set[int]]]:
    """Flagged pairs -> their code evidence; and (a, b, cell of a, cell of b) -> the rare fingerprints they share."""
    n = len(handed)
    max_df = max(2, min(MAX_DF, math.floor(MAX_SHARE * n)))
    index: dict[int, dict[str, list[Key]]] = defaultdict(dict)
    for student, mine in handed.items():
        for key, held in mine.marks.items():
            for h in held:
                index[h].setdefault(student, []).append(key)
    size: dict[tuple[str, Key], int] = defaultdict(int)  # indexed fingerprints per cell
    shared: dict[tuple[str, str], dict[tuple[Key, Key], list]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    for holders in index.values():
        df = len(holders)
        if df > max_df:
            continue
        for student, keys in holders.items():
            for key in keys:
                size[(student, key)] += 1
        if df < 2:
            continue
        weight = math.log2(n / df) / (df - 1)
        for a, b in combinations(sorted(holders), 2):
            keys_a, keys_b = holders[a], holders[b]
            split = weight / (len(keys_a) * len(keys_b))
            cells = shared[(a, b)]
            for ka in keys_a:
                for kb in keys_b:
                    tally = cells[(ka, kb)]
                    tally[0] += split
                    tally[1] += 1
    out: dict[tuple[str, str], list[dict]] = {}
    marks: dict[tuple, set[int]] = {}
    whole = _nearly_whole_cells(handed)
    for a, b in set(whole) - set(shared):
        shared[(a, b)] = {}
    for (a, b), cells in shared.items():
        copied = []
        for (ka, kb), (weight, count) in cells.items():
            smaller = min(size[(a, ka)], size[(b, kb)])
            containment = count / smaller if smaller else 0.0
            containment = min(containment, 1.0)
            if count >= MIN_SHARED and weight * containment >= MIN_SCORE:
                copied.append(
                    {
                        "cells": [_name(ka), _name(kb)],
                        "weight": round(weight, 2),
                        "shared": count,
                        "containment": round(containment, 2),
                        "score": round(weight * containment, 1),
                        "test": "rare passages",
                    }
                )
                common = handed[a].marks[ka] & handed[b].marks[kb]
                marks[(a, b, ka, kb)] = {h for h in common if len(index[h]) <= max_df}
        for (ka, kb), entry in whole.pop((a, b), {}).items():
            if not any(c["cells"] == entry["cells"] for c in copied):
                copied.append(entry)
                marks[(a, b, ka, kb)] = entry.pop("marks")
        if copied:
            copied.sort(key=lambda c: -c["score"])
            out[(a, b)] = [
                {
                    "kind": "code",
                    "count": len(copied),
                    "cells": copied,
                    "strength": round(sum(c["score"] for c in copied), 1),
                }
            ]
    return out, marks


def _name(key: Key) -> str:
    return f"{key[0]}/{key[1]}"


def _nearly_whole_cells(handed: dict[str, Handed]) -> dict[tuple[str, str], dict[tuple[Key, Key], dict]]:
    """The second test (see the module docstring): (a, b) -> (cell, cell) -> its evidence, for the
    same answer cell of two students that is nearly the same code. One matrix product per answer
    cell (every pair of the students who answered it, rows in blocks), over the fingerprints that
    two or more of them have and at most MAX_SHARE of the class. A cell nearly the same as MAX_DF
    others or more is common code in this class (an answer posted somewhere), no pair's evidence,
    as a fingerprint that many have is none for the first test."""
    n = len(handed)
    if n < 3:
        return {}
    unit = math.log2(n)
    limit = max(2, math.floor(MAX_SHARE * n))
    by_cell: dict[Key, list[tuple[str, frozenset[int]]]] = defaultdict(list)
    for student in sorted(handed):
        for key, prints in handed[student].marks.items():
            if prints:
                by_cell[key].append((student, prints))
    out: dict[tuple[str, str], dict[tuple[Key, Key], dict]] = defaultdict(dict)
    for key, cells in by_cell.items():
        if len(cells) < 2:
            continue
        df: dict[int, int] = defaultdict(int)
        for _, prints in cells:
            for h in prints:
                df[h] += 1
        columns = {h: i for i, h in enumerate(h for h, d in df.items() if 2 <= d <= limit)}
        if not columns:
            continue
        bits = np.zeros(len(columns), np.float32)
        for h, i in columns.items():
            bits[i] = math.log2(n / df[h])
        held = np.zeros((len(cells), len(columns)), np.float32)
        own = np.zeros(len(cells), np.float32)  # each cell's weight, its unique fingerprints included
        for row, (_, prints) in enumerate(cells):
            held[row, [columns[h] for h in prints if h in columns]] = 1.0
            own[row] = sum(math.log2(n / df[h]) for h in prints if df[h] <= limit)
        matches = np.zeros(len(cells), np.int64)  # how many other cells each one is nearly the same as
        found = []
        for start in range(0, len(cells), 512):  # rows in blocks: memory stays small in a large class
            shared = (held[start : start + 512] * bits) @ held.T
            smaller = np.minimum.outer(own[start : start + 512], own)
            share = np.divide(shared, smaller, out=np.zeros_like(shared), where=smaller > 0)
            score = shared * share / unit
            copy = (share >= NEARLY_WHOLE) & (score >= MIN_WHOLE)
            rows = np.arange(copy.shape[0])
            copy[rows, rows + start] = False
            matches[start : start + copy.shape[0]] = copy.sum(axis=1)
            found += [
                (int(i) + start, int(j), float(shared[i, j]), float(share[i, j]), float(score[i, j]))
                for i, j in zip(*np.nonzero(copy), strict=False)
                if int(i) + start < j
            ]
        for i, j, weight, share_ij, score_ij in found:
            if max(matches[i], matches[j]) >= MAX_DF:
                continue  # one of a crowd handing in the same code: common here, as in the first test
            (a, prints_a), (b, prints_b) = cells[i], cells[j]
            common = {h for h in prints_a & prints_b if h in columns}
            if len(common) < MIN_SHARED:
                continue
            out[(a, b)][(key, key)] = {
                "cells": [_name(key), _name(key)],
                "weight": round(weight, 2),
                "shared": len(common),
                "containment": round(min(share_ij, 1.0), 2),
                "score": round(score_ij * MIN_SCORE / MIN_WHOLE, 1),
                "test": "whole cell",
                "marks": common,
            }
    return out
