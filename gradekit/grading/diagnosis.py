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
  of them is weak evidence),
* its values are the student's on at least two independent inputs (two checks with
  different right values), recomputed by the verifier (:mod:`gradekit.grading.verify`)
  from each check's raw values and false on none -- one input may be a coincidence of
  its numbers; an answer that is a value (a number, a choice) is its own single input.

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
from gradekit.grading.verify import claims as verify
from gradekit.i18n.text import Text, _, join
from gradekit.results import CellResult, Check, Finding

MAX_ALTERNATIVES = 3


def diagnose(cell: CellResult) -> None:
    """Weigh the evidence of all the cell's checks: its findings, its diagnosis (the mistake(s)
    the best-supported finding names) and, when nothing is named, its relations."""
    more = [m for c in cell.checks for m in (c.evidence or {}).get("more", [])]  # further cases (harness.cases)
    passed = [w for c in cell.checks for w in (c.evidence or {}).get("passed", [])]  # where the student was right
    try:
        cell.findings = weigh(cell.checks, more, passed)
    except Exception:  # noqa: BLE001 - a weighing that cannot finish names nothing; the grade stands
        cell.findings = []
        for check in cell.checks:
            check.mistake = None
    best = max(cell.findings, key=lambda f: f.checks, default=None)
    cell.diagnosis = list(best.mistakes) if best else []
    try:
        cell.relations = [] if cell.findings else relate(cell.checks, more)
    except Exception:  # noqa: BLE001 - nor says anything it could not verify
        cell.relations = []
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


def weigh(checks: Iterable[Check], more: Iterable[Check] = (), passed: Iterable = ()) -> list[Finding]:
    """The findings of one cell, one per subject with enough evidence; sets each check's ``mistake``
    to the mistake its subject was diagnosed as (None where nothing was named). ``more`` are further
    cases of the cell's failed tests, ``passed`` the raw values of its passing comparisons with known
    mistakes (evidence only: gradekit.grading.harness.cases)."""
    passed = list(passed)
    checks = list(checks)
    further = [c for c in more if not c.passed and (c.candidates or c.ruled_out)]
    extra = {id(c) for c in further}
    failed = [c for c in checks if not c.passed and (c.candidates or c.ruled_out)]
    for check in checks:
        check.mistake = None
    found = []
    for group in _subjects(failed + further):
        finding = _weigh_subject(group, passed)
        if finding is None:
            continue
        finding.more = sum(1 for c in group if id(c) in extra)
        found.append((finding, group))
        if len(finding.mistakes) == 1:
            for check in group:
                if finding.mistakes[0] in check.candidates and id(check) not in extra:
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
            elif f.more:
                out.append(
                    _(
                        "Likely mistake: {name} (your values match it on {checks} of {failed} failed cases, {more} "
                        "of them further cases of the same tests, run past their first failure)."
                    ).format(name=mistake, checks=f.checks, failed=f.failed, more=f.more)
                )
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


def _weigh_subject(group: list[Check], passed: list = ()) -> Finding | None:  # type: ignore[assignment]
    group = [c for c in group if not _refuted(c)]
    if not group:
        return None
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
    mistakes = [m for m in mistakes if _reproduced(m, group) and not _contradicted(m, passed)]
    if not mistakes or len(mistakes) > MAX_ALTERNATIVES:
        return None
    mistakes = sorted(mistakes, key=lambda r: -support[r])
    checks = sum(1 for c in group if set(c.candidates) & set(mistakes))
    return Finding(mistakes, checks, failed)


def _refuted(check: Check) -> bool:
    """A check whose own values refute every mistake it claims: its candidates do not stand (the
    verifier recomputed them)."""
    raw = _raw(check)
    if raw is None or not check.candidates:
        return False
    return all(verify.mistake(m, raw) is False for m in check.candidates)


def _reproduced(mistake: str, group: list[Check]) -> bool:
    """Whether the mistake's values are the student's on two independent inputs at least (recomputed
    from the checks' raw values, never false on one); one suffices for an answer that is a value (a
    number, a choice: there is no other input) or a check the grader decided itself (its own
    Mismatch names the mistake)."""
    inputs: set[str] = set()
    for check in group:
        if mistake not in check.candidates and mistake not in check.ruled_out:
            continue
        raw = _raw(check)
        if raw is None or (check.evidence or {}).get("answer"):
            if mistake in check.candidates:
                return True  # the answer itself, or the grader's own verdict
            continue
        outcome = verify.mistake(mistake, raw)
        if outcome is False:
            return False
        if outcome:
            inputs.add(verify.fingerprint(raw))
    return len(inputs) >= 2


def _contradicted(mistake: str, passed: list) -> bool:
    """Whether the mistake gives a wrong value where the student's value was right (a passing
    comparison's raw values): then the student's code is not the mistake's."""
    return any(verify.contradicts(mistake, raw) for raw in passed)


def _raw(check: Check):
    return (check.evidence or {}).get("raw")


def _separated(mistake: str, group: list[Check]) -> bool:
    """Whether every mistake that coincided with ``mistake`` on some input was told apart from it on
    another: an input where the value matched ``mistake`` and ruled the other out."""
    matched = [c for c in group if mistake in c.candidates]
    rivals = {r for c in matched for r in c.candidates} - {mistake}
    return all(any(rival in c.ruled_out for c in matched) for rival in rivals)
