"""Evidence from the code: answer cells that share rare fingerprints.

The fingerprints of every answer cell (see :mod:`.fingerprints`; the stub
and the reference solution already removed) go into one index, fingerprint
-> the cells that have it. Only the index is walked, never every pair of
students: a fingerprint that ``df`` students have adds to the ``df·(df-1)/2``
pairs among them, and nothing else is compared.

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
share a few rare lines with another is no copy). A pair of students is
flagged when one of their cells is a copy; its strength is the sum of the
scores of the cells that are.

The thresholds were set on 17 synthetic classes of 33 to 250 students
(tests/integrity_class.py), in which they flag no honest pair;
``bench/integrity.py`` measures precision and recall on others.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations

from .material import Handed, Key

MAX_SHARE = 0.2      # fingerprints in more than this share of the class are common code
MAX_DF = 20          # ... and so are those in more submissions than this, however large the class
MIN_SCORE = 40.0     # shared weight (bits) x containment that makes two cells a copy
MIN_SHARED = 20      # shared indexed fingerprints: fewer is too little code to judge


def code_evidence(handed: dict[str, Handed]) -> tuple[dict[tuple[str, str], list[dict]], dict[tuple, set[int]]]:
    """Flagged pairs -> their code evidence; and (a, b, cell of a, cell of b) -> the rare fingerprints they share."""
    n = len(handed)
    max_df = max(2, min(MAX_DF, math.floor(MAX_SHARE * n)))
    index: dict[int, dict[str, list[Key]]] = defaultdict(dict)
    for student, mine in handed.items():
        for key, marks in mine.marks.items():
            for h in marks:
                index[h].setdefault(student, []).append(key)
    size: dict[tuple[str, Key], int] = defaultdict(int)   # indexed fingerprints per cell
    shared: dict[tuple[str, str], dict[tuple[Key, Key], list]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    for h, holders in index.items():
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
                    entry = cells[(ka, kb)]
                    entry[0] += split
                    entry[1] += 1
    out: dict[tuple[str, str], list[dict]] = {}
    marks: dict[tuple, set[int]] = {}
    for (a, b), cells in shared.items():
        copied = []
        for (ka, kb), (weight, count) in cells.items():
            smaller = min(size[(a, ka)], size[(b, kb)])
            containment = count / smaller if smaller else 0.0
            containment = min(containment, 1.0)
            if count >= MIN_SHARED and weight * containment >= MIN_SCORE:
                copied.append({"cells": [f"{ka[0]}/{ka[1]}", f"{kb[0]}/{kb[1]}"], "weight": round(weight, 2),
                               "shared": count, "containment": round(containment, 2),
                               "score": round(weight * containment, 1)})
                common = handed[a].marks[ka] & handed[b].marks[kb]
                marks[(a, b, ka, kb)] = {h for h in common if len(index[h]) <= max_df}
        if copied:
            copied.sort(key=lambda c: -c["score"])
            out[(a, b)] = [{"kind": "code", "count": len(copied), "cells": copied,
                            "strength": round(sum(c["score"] for c in copied), 1)}]
    return out, marks
