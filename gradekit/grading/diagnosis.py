"""One diagnosis per graded cell, weighed over the evidence of all its checks.

Each failed check that compared the student's value with the catalogue of
known wrong mistakes records which mistakes the value matched (``candidates``:
several when those mistakes give the same numbers on that input) and which it
did not (``ruled_out``); see :func:`gradekit.graders.check.evidence`. A mistake
is *named* only when

* no failed check ruled it out (every wrong value it was compared with
  matched it),
* every mistake it coincided with on some input (the same values there: no
  evidence for either) was told apart from it on another input, where the
  value matched it and not the other -- evidence only where mistakes differ,
* it speaks to at least half of the failed checks (a mistake unknown on most
  of them is weak evidence).

When two or three mistakes pass these tests (each matched on inputs where the
other was unknown), or the only evidence is inputs where a few mistakes
coincide, the finding is "consistent with A or B". Otherwise nothing is named:
a wrong name sends a student off in the wrong direction, no name does not.

Checks that compare different things (the parts of a quiz question, or an
output and the cache it leaves behind) share no mistake names; each such group
is a *subject* and gets a finding of its own.

When nothing is named, the cell's relations say what the wrong values show
(:mod:`gradekit.grading.relate`): known mistakes first, relations after.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from gradekit.grading.relate import relate
from gradekit.grading.relate import sentences as relation_sentences
from gradekit.i18n.text import Text, _, join
from gradekit.results import CellResult, Check, Finding

MAX_ALTERNATIVES = 3


def diagnose(cell: CellResult) -> None:
    """Weigh the evidence of all the cell's checks: its findings, its diagnosis (the mistake(s)
    the best-supported finding names) and, when nothing is named, its relations."""
    cell.findings = weigh(cell.checks)
    best = max(cell.findings, key=lambda f: f.checks, default=None)
    cell.diagnosis = list(best.mistakes) if best else []
    cell.relations = [] if cell.findings else relate(cell.checks)
    for check in cell.checks:
        check.evidence = None  # weighed: a stored result keeps the relations, not each input's evidence


def notes(cell: CellResult, view: Callable[[Any], str] = str) -> list[str]:
    """The cell's diagnosis in sentences for the student, one per finding (or per relation, when
    nothing is named), through ``view`` (a :class:`gradekit.i18n.text.View`: the student's
    language; default English)."""
    said = [view(sentence) for sentence in sentences(cell.findings, cell.checks, name=view)]
    said += [_capitalised(view(sentence)) for sentence in relation_sentences(cell.relations, name=view)]
    return said


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def weigh(checks: Iterable[Check]) -> list[Finding]:
    """The findings of one cell, one per subject with enough evidence; sets each check's ``mistake``
    to the mistake its subject was diagnosed as (None where nothing was named)."""
    checks = list(checks)
    failed = [c for c in checks if not c.passed and (c.candidates or c.ruled_out)]
    for check in checks:
        check.mistake = None
    found = []
    for group in _subjects(failed):
        finding = _weigh_subject(group)
        if finding is None:
            continue
        found.append((finding, group))
        if len(finding.mistakes) == 1:
            for check in group:
                if finding.mistakes[0] in check.candidates:
                    check.mistake = finding.mistakes[0]
    if len(found) > 1:  # say which check each finding is about
        for finding, group in found:
            finding.about = next(c.name for c in group if set(c.candidates) & set(finding.mistakes))
    findings = [finding for finding, _ in found]
    return findings


def sentences(findings: list[Finding], checks: Iterable[Check] = (), name: Callable[[str], str] = str) -> list[Text]:
    """The findings as sentences for the student: what is likely wrong, and how many checks say so.

    ``name`` shows a mistake's catalogue name (and a check's name) to the
    student: in their language, through a :class:`gradekit.i18n.text.View`. A
    finding that a check's own message already states (a chosen option's
    misconception) is not repeated.
    """
    checks = list(checks)
    findings = [f for f in findings if not _said(f, checks)]
    several = len(findings) > 1
    out = []
    for f in findings:
        about = name(f.about)
        if len(f.mistakes) == 1:
            mistake = name(f.mistakes[0])
            if several:
                out.append(_("{about}: likely mistake: {name}.").format(about=about, name=mistake))
            elif f.failed > 1:
                out.append(
                    _("Likely mistake: {name} (your values match it on {checks} of {failed} failed checks).").format(
                        name=mistake, checks=f.checks, failed=f.failed
                    )
                )
            else:
                out.append(_("Likely mistake: {name}.").format(name=mistake))
        else:
            names = _alternatives([name(r) for r in f.mistakes])
            if several:
                out.append(
                    _("{about}: your values fit more than one known mistake: {names}.").format(about=about, names=names)
                )
            else:
                out.append(_("Your values fit more than one known mistake: {names}.").format(names=names))
    return out


def _alternatives(names: list[str]) -> Text:
    """“A” or “B” (or “C”): at most MAX_ALTERNATIVES names."""
    if len(names) == 2:
        return _("“{0}” or “{1}”").format(*names)
    if len(names) == 3:
        return _("“{0}” or “{1}” or “{2}”").format(*names)
    return join(", ", [_("“{0}”").format(n) for n in names])


def _said(finding: Finding, checks: list[Check]) -> bool:
    if len(finding.mistakes) != 1:
        return False
    mistake = finding.mistakes[0]
    backing = [c for c in checks if not c.passed and mistake in c.candidates]
    return bool(backing) and all(mistake in c.message for c in backing)


def _subjects(failed: list[Check]) -> list[list[Check]]:
    """Group checks that compared a mistake in common (connected components), in order."""
    parent = list(range(len(failed)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, check in enumerate(failed):
        for mistake in (*check.candidates, *check.ruled_out):
            if mistake in owner:
                parent[find(i)] = find(owner[mistake])
            else:
                owner[mistake] = i
    groups: dict[int, list[Check]] = {}
    for i, check in enumerate(failed):
        groups.setdefault(find(i), []).append(check)
    return list(groups.values())


def _weigh_subject(group: list[Check]) -> Finding | None:
    support: Counter[str] = Counter()
    against: Counter[str] = Counter()
    order: list[str] = []
    for check in group:
        for mistake in check.candidates:
            support[mistake] += 1
            if mistake not in order:
                order.append(mistake)
        for mistake in check.ruled_out:
            against[mistake] += 1
    failed = len(group)
    consistent = [r for r in order if against[r] == 0 and 2 * support[r] >= failed]
    named = [r for r in consistent if _separated(r, group)]
    mistakes = named if named else (consistent if len(consistent) > 1 else [])
    if not mistakes or len(mistakes) > MAX_ALTERNATIVES:
        return None
    mistakes = sorted(mistakes, key=lambda r: -support[r])
    checks = sum(1 for c in group if set(c.candidates) & set(mistakes))
    return Finding(mistakes, checks, failed)


def _separated(mistake: str, group: list[Check]) -> bool:
    """Whether every mistake that coincided with ``mistake`` on some input was told apart from it on
    another: an input where the value matched ``mistake`` and ruled the other out."""
    matched = [c for c in group if mistake in c.candidates]
    rivals = {r for c in matched for r in c.candidates} - {mistake}
    return all(any(rival in c.ruled_out for c in matched) for rival in rivals)
