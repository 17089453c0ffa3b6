"""How likely chance alone gives what ``gradekit check`` sees: the tails its rows are judged by.

A row that fails on a handful of simulated students must fail because of the assignment, not
because of luck: a concept check's classmates who agree, a guessing strategy that scores above
chance on ten items, are judged by how often chance alone would do as well.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def binomial_tail(successes: int, trials: int, p: float) -> float:
    """P(X >= successes) for X ~ Binomial(trials, p): how likely chance alone gives this many."""
    return sum(math.comb(trials, k) * p**k * (1 - p) ** (trials - k) for k in range(successes, trials + 1))


def chance_tail(successes: int, chances: Sequence[float]) -> float:
    """P(X >= successes) where X counts the successes of independent trials, each with its own
    chance (a Poisson binomial: items with 3, 4 or 5 options guessed alike)."""
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return float(sum(dist[max(successes, 0) :]))


def beyond_chance(successes: int, trials: int, rate: float, level: float) -> bool:
    """Whether ``successes`` of ``trials`` is more than a true ``rate`` gives by chance: chance alone
    gives as many less than ``level`` of the time (the exact binomial tail). On few trials it rarely
    is: one of three is a third, and a rate of 5% gives one of three 14% of the time."""
    return trials > 0 and binomial_tail(successes, trials, rate) < level
