"""The right function on a fitted input: S = ref(c·A) or ref(A + c) for one input A and a constant c
fitted on each failed check (a temperature, powers of 2 for exp, a change of base, positions off by
one); for a function among the inputs (a score function passed in), what it returns times c or plus
c. c is named when it is a simple number (2, ½, ln 2, √d_k, 1/n ...: :mod:`.numbers`; one size over
another, √(d_k/d_v), as a size off by one is), else said with two digits; it is said only where it
holds on every failed check where it was tried.

The fit calls the reference: c = ½ and 2 (a shift of ∓ln 2), further out while the values come
nearer, then Gauss-Newton steps from the nearest, at most :data:`CALLS` calls, for each input in turn
-- a function's output, an array, then two arrays scaled by one c (the scores and their running
maximum: a change of base) -- until one fits. On a function that returns several parts, c is fitted
to the wrong parts: a change that explains them may spoil the right ones (a running maximum scaled
with its scores), and the relation is then said of the wrong parts.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from gradekit.graders.relations import numbers, words
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text, phrase

VARYING = phrase(
    "your values are what the right function gives for {change}, with a c of its own on each check ({values})",
    zh="你的结果是正确的函数在 {change} 时算出的结果，每项检查的 c 各不相同（{values}）",
)
STEP = math.log(2)  # the first tries: c = 1/2 and 2 (log c = ∓ln 2); a shift of -1 and 1 is about as far
OUTWARD = 4  # then up to 32 (or 1/32), a shift of up to 5 -- a step along the slope goes further if it must
STEPS = 5
CALLS = 2 + OUTWARD + 4 * STEPS  # the most one fit calls the reference
FEWEST = 8  # calls left below which no fit starts (the family's cost bounds the rest)


class Fitted(Family):
    name = "fitted"
    rank = 140
    cost = Cost(reference=200)

    def search_call(self, whole: Whole) -> None:
        for key, function in whole.inputs.functions.items():
            name = words.called(key)
            if self._fit(whole, name, "scale", _scaled_output(key, function)):
                return
            if self._fit(whole, name, "shift", _shifted_output(key, function)):
                return
        arrays = whole.inputs.arrays
        nearest: dict[str, float] = {}  # how near a scale of each input alone came: its misfit over the right value's
        for key, A in arrays.items():
            if self._fit(whole, key, "scale", _scaled(key, A), nearest):
                return
            if self._fit(whole, key, "shift", _shifted(key, A)):
                return
        # one c for two inputs (a change of base of the scores and their maximum), the pairs whose inputs'
        # scales alone came nearest first, while the family's cost allows
        pairs = sorted(_pairs(arrays), key=lambda ab: nearest.get(ab[0], 1.0) + nearest.get(ab[1], 1.0))
        for a, b in pairs:
            if self._fit(whole, f"{a}+{b}", "scale", _scaled_both(a, arrays[a], b, arrays[b])):
                return

    def _fit(
        self, whole: Whole, key: str, kind: str, change: Callable[[float], dict], nearest: dict | None = None
    ) -> bool:
        """Fit c for one input (or two); record what holds; True when something does. ``nearest``
        gets how near the fit came (its misfit over the right value's)."""
        if not whole.wants(self, f"{kind}:{key}:") or whole.left(self) < FEWEST:
            return False
        failed = whole.failed  # fitted on the wrong parts: a right part the change spoils is not a misfit
        target = np.concatenate([whole.got[i].ravel() for i in failed])
        if not np.all(np.isfinite(target)):
            return False
        log = kind == "scale"

        def value(u: float) -> np.ndarray | None:
            out = whole.reference(self, whole.inputs.args_with(**change(math.exp(u) if log else u)))
            if out is None or any(out[i].shape != whole.got[i].shape for i in failed):
                return None
            flat = np.concatenate([out[i].ravel() for i in failed])
            return flat if np.all(np.isfinite(flat)) else None

        right = np.concatenate([whole.expected[i].ravel() for i in failed])  # u = 0: c = 1 (or a shift of 0)
        found = _fit(value, target, right)
        if found is None:
            return False  # the reference does not change with it, or does not take it
        subjects = [whole.subject] if not whole.partly else [whole.subjects[i] for i in failed]
        for subject in subjects:
            whole.evidence.tested.append(f"{subject}|{self.name}|{kind}:{key}:*")
        u, flat = found
        if nearest is not None and flat is not None:
            away = float(np.sum((right - target) ** 2))
            nearest[key] = float(np.sum((flat - target) ** 2)) / away if away else 1.0
        if flat is None or not close(target, flat, whole.tol):
            return False
        c = math.exp(u) if log else u
        named = []
        if kind == "scale":
            for expression in numbers.named(c, whole.inputs.sizes, 1e-5, ratios=True):
                ratio = "ratio:" if len(expression.sizes) == 2 else ""
                named.append(f"scale:{key}:expr:{ratio}{expression.key}")
                self.holds(whole, named[-1], {**expression.detail, "c": c}, subjects)
        if target.size < 2:  # a c fitted to one value fits any value: only a simple number of the sizes says more
            return bool(named)
        self.holds(whole, f"{kind}:{key}:c:{numbers.key(c)}", {"c": c}, subjects)
        self.holds(whole, f"{kind}:{key}:any", {"c": c}, subjects)
        return True

    def level(self, arg: str) -> int:
        if ":expr:" in arg:  # a size's simple form before a size off by one or one size over another
            return 1 if numbers.off_by(arg) or ":expr:ratio:" in arg else 0
        return 3 if arg.endswith(":any") else 2  # one c on every check before a c of its own on each

    def specific(self, arg: str) -> bool:
        return True  # the value is what the reference gives for the fitted input

    def alias(self, arg: str, detail: dict) -> str:
        if ":expr:" in arg:
            return arg.split(":expr:", 1)[0] + ":expr:" + str(detail.get("form", ""))
        return arg

    def sentence(self, arg, relation) -> Text | None:
        kind, key, rest = arg.split(":", 2)
        names = key.split("+")  # one c for two inputs: "ln 2·s and ln 2·m"
        if rest == "any":
            values = ", ".join(numbers.two_digits(c) for c in relation.details.get("c", [])[:3])
            change = words.names([f"c·{n}" for n in names]) if kind == "scale" else f"{key} + c"
            return VARYING.format(change=change, values=values)
        if kind == "scale" and rest.startswith("expr:"):
            text = rest[5:].removeprefix("ratio:")
            if text.startswith("1/"):
                return words.gives(words.names([f"{n}/{numbers.operand(text[2:])}" for n in names]))
            return words.gives(words.names([f"{numbers.operand(text)}·{n}" for n in names]))
        c = float(rest[2:])
        if kind == "scale":
            return words.gives(words.names([f"{numbers.two_digits(c)}·{n}" for n in names]))
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


def _scaled_both(a: str, A: np.ndarray, b: str, B: np.ndarray) -> Callable[[float], dict]:
    return lambda c: {a: c * A, b: c * B}


def _pairs(arrays: dict[str, np.ndarray]) -> list[tuple[str, str]]:
    """Two inputs one c may scale together: one's shape begins the other's (a table and its row maxima)."""
    keys = list(arrays)
    out = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            sa, sb = arrays[a].shape, arrays[b].shape
            short, long_ = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
            if short and long_[: len(short)] == short:
                out.append((a, b))
    return out


def _fit(value: Callable[[float], np.ndarray | None], target: np.ndarray, right: np.ndarray):
    """The u (log c for a scale, c for a shift) whose value(u) is nearest ``target`` in least squares:
    ±STEP first, then outwards while it comes nearer, then Gauss-Newton steps from the nearest (half a
    step, or a quarter, when a whole one goes no nearer). None when the value does not change with u (or there is
    none); else (u, value(u)) of the best found."""

    def misfit(flat: np.ndarray | None) -> float:
        return math.inf if flat is None else float(np.sum((flat - target) ** 2))

    seen: dict[float, np.ndarray | None] = {0.0: right, -STEP: value(-STEP), STEP: value(STEP)}
    if all(f is None or close(f, right, (1e-9, 1e-12)) for u, f in seen.items() if u):
        return None
    best = min(seen, key=lambda u: misfit(seen[u]))
    if best:  # the nearest is an end: further out while it comes nearer
        previous = best
        for k in range(2, OUTWARD + 2):
            u = k * best
            seen[u] = value(u)
            if misfit(seen[u]) >= misfit(seen[previous]):
                break
            previous = u
    # then Gauss-Newton steps from the nearest, the slope measured a little way off
    u0 = min(seen, key=lambda u: misfit(seen[u]))
    for _ in range(STEPS):
        f0 = seen[u0]
        if f0 is None or close(f0, target, (1e-10, 1e-13)):
            break
        h = 1e-4 * max(1.0, abs(u0))
        ahead = value(u0 + h)
        if ahead is None:
            break
        J = (ahead - f0) / h
        den = float(np.dot(J, J))
        if den == 0:
            break
        move = max(min(float(np.dot(J, target - f0)) / den, 2 * STEP), -2 * STEP)
        if abs(move) <= 1e-12 * max(1.0, abs(u0)):
            break
        for _half in range(3):  # no nearer: half the way (twice at most)
            u = u0 + move
            seen[u] = value(u)
            if misfit(seen[u]) < misfit(f0):
                break
            move /= 2
        u0 = min(seen, key=lambda v: misfit(seen[v]))
        if seen[u0] is f0:
            break
    u0 = min(seen, key=lambda u: misfit(seen[u]))
    return (u0, seen[u0]) if seen[u0] is not None and u0 != 0.0 else None


def _split(flat: np.ndarray, like: list[np.ndarray]) -> list[np.ndarray]:
    out, at = [], 0
    for S in like:
        out.append(flat[at : at + S.size].reshape(S.shape))
        at += S.size
    return out


FAMILY = Fitted()
