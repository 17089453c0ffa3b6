"""A cell's checks as the feedback lists them: one line for the checks that only differ in value.

A failed check whose message says nothing but "N of M values differ from the
reference (tolerance ...)" (``Check.differs``) tells the student little, and a
cell has many of them: the graded notebook (the Annotate stage) and the
feedback page show such checks of a cell together, as one line with the cases
in a short list, at the place of the first of them. Every other check keeps
its own line. Checks are grouped by their tolerance, and only two or more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from gradekit.i18n.text import Text, _
from gradekit.results import Check

MAX_CASES = 5  # cases listed; the rest are counted

SUMMARY = _("{n} checks: values differ from the reference (tolerance rtol={rtol:g}, atol={atol:g}):")
CASE = _("{what} ({wrong} of {size} values)")
MORE = _("and {n} more")


@dataclass
class Differing:
    """Failed checks of one cell whose messages say only that their values differ."""

    checks: list[Check]

    def summary(self) -> Text:
        rtol, atol = (list(self.checks[0].tolerance) + [0.0, 0.0])[:2]
        return SUMMARY.format(n=len(self.checks), rtol=rtol, atol=atol)

    def cases(self, view: Callable[[Any], str] = str) -> list[str]:
        """One short line per check: what it compared and how many values differed."""
        out = []
        for check in self.checks[:MAX_CASES]:
            parts = [view(CASE.format(what=view(what), wrong=wrong, size=size)) for what, wrong, size in check.differs]
            out.append("; ".join(parts))
        if len(self.checks) > MAX_CASES:
            out.append(view(MORE.format(n=len(self.checks) - MAX_CASES)))
        return out


def grouped(checks: Iterable[Check]) -> list[Check | Differing]:
    """The checks in order, those that only differ in value (two or more of a tolerance) as one."""
    checks = list(checks)
    groups: dict[tuple, list[Check]] = {}
    for check in checks:
        if not check.passed and check.differs:
            groups.setdefault(tuple(check.tolerance), []).append(check)
    together = {id(c): key for key, group in groups.items() if len(group) > 1 for c in group}
    out: list[Check | Differing] = []
    placed: set[tuple] = set()
    for check in checks:
        key = together.get(id(check))
        if key is None:
            out.append(check)
        elif key not in placed:
            placed.add(key)
            out.append(Differing(groups[key]))
    return out
