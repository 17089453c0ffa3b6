"""The right function on a fitted input: S = ref(c·A) or ref(A + c) for one input A and a constant c
fitted on each failed check (a temperature, powers of 2 for exp, a change of base, positions off by
one); for a function among the inputs (a score function passed in), what it returns times c or plus
c. c is named when it is a simple number (2, ½, ln 2, √d_k, 1/n ...: :mod:`.numbers`; one size over
another, √(d_k/d_v), as a size off by one is), else said with two digits; it is said only where it
holds on every failed check where it was tried.

The fit calls the reference: a few values of c on a grid, then Gauss-Newton steps
from the best one, at most :data:`STEPS` of them, for each input in turn, until one fits.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from gradekit.graders.relations import numbers, words
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text

SCALES = (1 / 8, 1 / 4, 1 / 2, 2.0, 4.0, 8.0)  # with c = 1, the right value itself
SHIFTS = (-2.0, -1.0, -0.5, 0.5, 1.0, 2.0)
STEPS = 6


class Fitted(Family):
    name = "fitted"
    rank = 140
    cost = Cost(reference=160)

    def search_call(self, whole: Whole) -> None:
        for key, function in whole.inputs.functions.items():
            name = words.called(key)
            if whole.wants(self, f"scale:{name}:") and self._fit(
                whole, name, "scale", _scaled_output(key, function), SCALES, log=True
            ):
                return
            if whole.wants(self, f"shift:{name}:") and self._fit(
                whole, name, "shift", _shifted_output(key, function), SHIFTS, log=False
            ):
                return
        for key, A in whole.inputs.arrays.items():
            if whole.wants(self, f"scale:{key}:") and self._fit(whole, key, "scale", _scaled(key, A), SCALES, log=True):
                return
            if whole.wants(self, f"shift:{key}:") and self._fit(
                whole, key, "shift", _shifted(key, A), SHIFTS, log=False
            ):
                return

    def _fit(self, whole: Whole, key: str, kind: str, change: Callable[[float], dict], grid, log: bool) -> bool:
        """Fit c for one input; record what holds; True when something does."""
        target = np.concatenate([S.ravel() for S in whole.got])
        if not np.all(np.isfinite(target)) or whole.left(self) < len(grid) + 2 * STEPS:
            return False

        def value(c: float) -> np.ndarray | None:
            out = whole.reference(self, whole.inputs.args_with(**change(c)))
            if out is None or any(T.shape != S.shape for T, S in zip(out, whole.got, strict=False)):
                return None
            flat = np.concatenate([T.ravel() for T in out])
            return flat if np.all(np.isfinite(flat)) else None

        def misfit(flat: np.ndarray | None) -> float:
            return math.inf if flat is None else float(np.sum((flat - target) ** 2))

        right = np.concatenate([R.ravel() for R in whole.expected])
        tried = [(c, value(c)) for c in grid]
        if all(flat is None or close(flat, right, (1e-9, 1e-12)) for _c, flat in tried):
            return False  # the reference does not change with this input's scale (or shift)
        self.tried(whole, f"{kind}:{key}:")
        c, flat = min(tried, key=lambda cf: misfit(cf[1]))
        if flat is None:
            return False
        c, flat = _gauss_newton(value, misfit, c, flat, target, log)
        if flat is None or not all(
            close(S, T, whole.tol) for S, T in zip(whole.got, _split(flat, whole.got), strict=False)
        ):
            return False
        if kind == "scale":
            for expression in numbers.named(c, whole.inputs.sizes, 1e-5, ratios=True):
                ratio = "ratio:" if len(expression.sizes) == 2 else ""
                self.holds(whole, f"scale:{key}:expr:{ratio}{expression.key}", {**expression.detail, "c": c})
        self.holds(whole, f"{kind}:{key}:c:{numbers.key(c)}", {"c": c})
        return True

    def level(self, arg: str) -> int:
        if ":expr:" in arg:  # a size's simple form before a size off by one or one size over another
            return 1 if "- 1" in arg or "+ 1" in arg or ":expr:ratio:" in arg else 0
        return 2

    def specific(self, arg: str) -> bool:
        return True  # the value is what the reference gives for the fitted input

    def alias(self, arg: str, detail: dict) -> str:
        if ":expr:" in arg:
            return arg.split(":expr:", 1)[0] + ":expr:" + str(detail.get("form", ""))
        return arg

    def sentence(self, arg, relation) -> Text | None:
        kind, key, rest = arg.split(":", 2)
        if kind == "scale" and rest.startswith("expr:"):
            text = rest[5:].removeprefix("ratio:")
            if text.startswith("1/"):
                return words.gives(f"{key}/{numbers.operand(text[2:])}")
            return words.gives(f"{numbers.operand(text)}·{key}")
        c = float(rest[2:])
        if kind == "scale":
            return words.gives(f"{numbers.two_digits(c)}·{key}")
        sign = "+" if c > 0 else "-"
        return words.gives(f"{key} {sign} {numbers.two_digits(abs(c))}")


def _scaled(key: str, A: np.ndarray) -> Callable[[float], dict]:
    return lambda c: {key: c * A}


def _shifted(key: str, A: np.ndarray) -> Callable[[float], dict]:
    return lambda c: {key: A + c}


def _scaled_output(key: str, function: Callable) -> Callable[[float], dict]:
    return lambda c: {key: lambda *a, **k: c * np.asarray(function(*a, **k), dtype=np.float64)}


def _shifted_output(key: str, function: Callable) -> Callable[[float], dict]:
    return lambda c: {key: lambda *a, **k: np.asarray(function(*a, **k), dtype=np.float64) + c}


def _gauss_newton(value, misfit, c: float, flat: np.ndarray, target: np.ndarray, log: bool):
    """Least-squares steps on c from (c, value(c)), in log c for a scale; the best found."""
    best = (misfit(flat), c, flat)
    for _step in range(STEPS):
        h = 1e-4 * (abs(c) if log else max(1.0, abs(c)))
        ahead = value(c + h)
        if ahead is None:
            break
        J = (ahead - flat) / h
        den = float(np.dot(J, J))
        if den == 0:
            break
        move = float(np.dot(J, target - flat)) / den
        if log:  # a scale stays positive, and moves at most 4x a step
            move = max(min(move, 3 * c), -0.75 * c)
        new = c + move
        new_flat = value(new)
        if new_flat is None:
            break
        c, flat = new, new_flat
        if misfit(flat) < best[0]:
            best = (misfit(flat), c, flat)
        if abs(move) <= 1e-10 * max(1.0, abs(c)):
            break
    return best[1], best[2]


def _split(flat: np.ndarray, like: list[np.ndarray]) -> list[np.ndarray]:
    out, at = [], 0
    for S in like:
        out.append(flat[at : at + S.size].reshape(S.shape))
        at += S.size
    return out


FAMILY = Fitted()
