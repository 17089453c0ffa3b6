"""Further cases: a test that stopped at its first failure, run again past it, for the evidence its loop
never reached.

A grader that compares several cases in one test (``for shape in SHAPES: check.array(...)``) stops at
the first that fails: the cell then has one failed input, and one input proves nothing -- a known
mistake may give the student's values there by a coincidence of its numbers, which a later case would
have shown. Nothing is named, and no relation said, on fewer than two independent inputs; so when a
cell's failed comparisons hold fewer than :data:`ENOUGH` different inputs, its failed tests are run
again (the plain ones, at most :data:`RERUNS` of them, with the same fixtures: the same inputs, in the
same order; then, if the cell is still short, with its ``rng`` seeded anew: the same test on numbers
of its own), their failed comparisons kept instead of raised (:func:`gradekit.graders.keeping.keeping`):
the test goes on past its first failure, calling the student's code in the sandbox as always and the
catalogue's mistakes on each further input. What those cases show is evidence only -- it is attached to
the failed check (``Check.evidence["more"]``), weighed with the cell (:mod:`gradekit.grading.diagnosis`)
and said as "further cases"; the score and the checks the student reads are the first run's.

A cell whose failed checks point to a known mistake has its passing tests run again too (at most
:data:`PASSES`), their comparisons' known mistakes worked out: a mistake whose values are not the right
ones where the student's were right is not the student's (a name must fit the student's values
everywhere they were compared, not only where they were wrong).

Costs nothing for a right answer (no failed check), and for a wrong one at most RERUNS + PASSES more
runs of its tests, each within the notebook's budget.
"""

from __future__ import annotations

from typing import Any

from gradekit.grading.verify import claims as verify
from gradekit.results import Check

ENOUGH = 3  # different failed inputs in a cell with which no test is run again
RERUNS = 3  # failed tests of a cell run again, at most
KEPT = 8  # further failed cases kept from one run
PASSES = 6  # passing tests of a cell with a candidate mistake run again, at most


def witness(check: Check) -> Any:
    """The raw values of a failed comparison of values that is no answer (a value the student wrote)."""
    evidence = check.evidence or {}
    raw = evidence.get("raw")
    if check.passed or evidence.get("answer") or raw is None or not raw.right:
        return None  # a law compares the student's values with their own: no input of the right answer
    return raw


def inputs(checks: list[Check]) -> set[str]:
    """The different inputs a cell's failed comparisons (and the further cases found so far) were made on."""
    seen = set()
    for check in checks:
        for one in [check, *((check.evidence or {}).get("more", []))]:
            raw = witness(one)
            if raw is not None:
                seen.add(verify.fingerprint(raw))
    return seen


def gather(plugin, items: list, module_of) -> None:
    """Run again the failed tests of each cell short of inputs, and attach their further cases; and the
    passing tests of a cell whose failed checks point to a known mistake, for the values of that
    mistake where the student was right."""
    for cell, checks in plugin.checks.items():
        if any(c.candidates for c in checks if witness(c) is not None):
            _passing(plugin, items, cell, module_of)
        if not any(witness(c) is not None for c in checks) or len(inputs(checks)) >= ENOUGH:
            continue
        failed = {id(c) for c in checks if witness(c) is not None}
        runs = 0
        for item, check in _tests(plugin, items, cell, module_of):
            if id(check) not in failed or not plugin.is_direct(item):
                continue
            seen = inputs(checks)
            fresh = _new(plugin.run_again(item, seen)[0], seen)  # past its first failure, on the same numbers
            if len(seen) < ENOUGH + 1:  # and on numbers of its own (a test of one case, or of one input)
                fresh += _new(plugin.run_again(item, seen, again=1)[0], seen)
            if fresh:
                assert check.evidence is not None  # it has raw values
                check.evidence["more"] = [_no_step(case) for case in fresh[:KEPT]]
            runs += 1
            if runs >= RERUNS or len(seen) >= ENOUGH + 1:
                break


def _new(cases: list[Check], seen: set[str]) -> list[Check]:
    """The cases on inputs not seen yet (``seen`` gets them)."""
    out = []
    for case in cases:
        raw = witness(case)
        if raw is None:
            continue
        key = verify.fingerprint(raw)
        if key not in seen:
            seen.add(key)
            out.append(case)
    return out


def _no_step(case: Check) -> Check:
    """A further case of a test that builds its output step by step comes after the step that failed
    first: it is no evidence of where the values go wrong (right for t steps), only of what they are."""
    evidence = case.evidence or {}
    raw = evidence.get("raw")
    if raw is not None and raw.step is not None:
        raw.step = None
        evidence["holds"] = {k: v for k, v in evidence.get("holds", {}).items() if "|step|" not in k}
        evidence["tested"] = [k for k in evidence.get("tested", []) if "|step|" not in k]
    return case


def _passing(plugin, items: list, cell: str, module_of) -> None:
    """Run again (at most PASSES of) the cell's passing tests, keeping the raw values of their
    comparisons with known mistakes: a mistake whose values there are not the right ones -- where the
    student's are -- is not the student's. Attached to the cell's first failed check (``"passed"``)."""
    checks = plugin.checks.get(cell, [])
    first = next((c for c in checks if witness(c) is not None), None)
    if first is None or first.evidence is None:
        return
    passed: list = []
    runs = 0
    for item, check in _tests(plugin, items, cell, module_of):
        if not check.passed or not plugin.is_direct(item):
            continue
        passed += plugin.run_again(item, set(), passes=True)[1]
        runs += 1
        if runs >= PASSES:
            break
    if passed:
        first.evidence["passed"] = passed


def _tests(plugin, items: list, cell: str, module_of) -> list[tuple[Any, Check]]:
    """The cell's tests, each with the check it recorded (in order: one check per test run)."""
    mine = [item for item in items if module_of(item.nodeid) == cell]
    recorded = plugin.checks.get(cell, [])
    if len(mine) != len(recorded):  # a skipped test recorded nothing: pair them by name
        return []
    return list(zip(mine, recorded, strict=True))
