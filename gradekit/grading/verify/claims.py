"""The verifier's entry: whether a sentence is true on one failed check (see the package's docstring)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gradekit.graders.witness import Witness
from gradekit.grading.verify import calls, order, places, probes, values
from gradekit.grading.verify.basics import Case

Outcome = bool | None

CHECKS: dict[str, Callable[[str, Case], Outcome]] = {
    "factor": values.factor,
    "shift": values.shift,
    "offset": values.offset,
    "elementwise": values.elementwise,
    "order": order.order,
    "normalised": values.normalised,
    "zeros": values.zeros,
    "scaled": values.scaled,
    "precision": values.precision,
    "input": values.of_input,
    "sums": values.sums,
    "step": values.step,
    "where": places.where,
    "changed": calls.changed,
    "pieces": calls.pieces,
    "transformed": calls.transformed,
    "fitted": calls.fitted,
    "independent": calls.independent,
    "keyword": probes.keyword,
    "probed": probes.probed,
}


def _composition(arg: str, case: Case) -> Outcome:
    return calls.again(arg, case) if arg.startswith("again:") else values.composition(arg, case)


CHECKS["composition"] = _composition
# claims noise says nothing about: the grader's step (a claim about the check, not its values); no 0
# where the right values are 0 (an absence, which the student's values refute by having zeros there);
# what the student's function answered on the engine's probes (their answer there refutes it, not the
# value checked)
ABOUT_THE_CHECK = frozenset({"step", "zeros", "probed"})


def known(family: str) -> bool:
    """Whether this module can check the claims of ``family`` (a claim it cannot check is not said)."""
    return family in CHECKS


def claim(family: str, arg: str, subject: str, raw: Witness, detail: dict | None = None, said=None) -> Outcome:
    """Whether the relation ``family``/``arg`` of ``subject`` is true on this failed check (None: this
    check is not about the subject, or cannot refute the claim). ``detail`` is what the search found
    here (a fitted c: a witness this function checks, never trusts); ``said``, what the sentence shows
    (its digits, its totals)."""
    check = CHECKS.get(family)
    if check is None:
        return None
    case = Case(raw, subject, detail, said or {})
    if not case.present:
        return None
    if case.derived:
        found = calls.mixed(case, case.derived)
        if found is None:
            return None
        case.S, case.R = [found[0]], [found[1]]
    try:
        outcome = check(arg, case)
    except Exception:  # noqa: BLE001 - a claim that cannot be recomputed here is not evidence for it
        return None
    if outcome is True and family not in ABOUT_THE_CHECK and _holds_of_noise(check, arg, case):
        return None
    return outcome


def _holds_of_noise(check: Callable[[str, Case], Outcome], arg: str, case: Case) -> bool:
    """Whether the claim would hold had the student's values been noise of their shape: then this check
    could not have refuted it, and says nothing for it."""
    rng = np.random.default_rng(20261204)
    kept = case.S
    with np.errstate(all="ignore"):
        case.S = [S + (np.abs(S) + 1.0) * rng.standard_normal(S.shape) for S in kept]
    try:
        with np.errstate(all="ignore"):
            return check(arg, case) is True
    except Exception:  # noqa: BLE001
        return False
    finally:
        case.S = kept


def mistake(name: str, raw: Witness) -> Outcome:
    """Whether the known mistake ``name`` gives the student's values on this check (None: its value is
    unknown here). A mistake that gives the right answer here, or would raise, is not the student's."""
    value = raw.mistakes.get(name)
    if value is None or not raw.right:
        return None
    if isinstance(value, str):  # "fails": it would raise on this input, and the student got a value
        return False
    if len(value) != len(raw.got):
        return None
    rtol, atol = raw.tol

    def same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
        with np.errstate(all="ignore"):
            return all(
                x.shape == y.shape and bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
                for x, y in zip(a, b, strict=True)
            )

    if same(value, raw.expected):
        return False
    return same(raw.got, value)


def contradicts(name: str, raw: Witness) -> bool:
    """Whether the known mistake ``name`` gives another value than the student's where the student's value
    was right (``raw``: a passing comparison), or would raise there: then it is not the student's."""
    value = raw.mistakes.get(name)
    if value is None:
        return False
    if isinstance(value, str):
        return True
    if len(value) != len(raw.expected):
        return False
    rtol, atol = raw.tol
    with np.errstate(all="ignore"):
        return not all(
            v.shape == e.shape and bool(np.allclose(v, e, rtol=rtol, atol=atol, equal_nan=True))
            for v, e in zip(value, raw.expected, strict=True)
        )


def fingerprint(raw: Witness) -> str:
    """What tells two inputs apart: the right values (two checks with the same are one input)."""
    return raw.fingerprint()
