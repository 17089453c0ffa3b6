"""A function of each right value: S = t(R) for t one of abs, square, √, exp, log, ReLU ("the right
ones where these are positive, and 0 elsewhere"), its mirror, sigmoid, tanh, sign, 1/r, GELU (exact
and its tanh approximation), softplus, a clipping (raised to a floor, lowered to a ceiling), rounding
to k decimals, cutting the decimals off after k.

:data:`TRANSFORMS` is the list the families that transform an input use too
(:mod:`.of_input`, :mod:`.transformed`): each with the formula that shows it on a name.
A clipping's bounds are the student's own values, said to two significant digits.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gradekit.graders.relations import numbers
from gradekit.graders.relations.family import Family, Part
from gradekit.graders.relations.values import close, differ
from gradekit.i18n.text import Text, phrase


@dataclass(frozen=True)
class Transform:
    name: str
    apply: Callable[[np.ndarray], np.ndarray]
    defined: Callable[[np.ndarray], bool]  # on which values it is tried
    formula: str  # how it reads on a name: "tanh({})"


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # 1 / (1 + exp(-x)), without overflow


def _any(x: np.ndarray) -> bool:
    return True


_ERF = np.vectorize(math.erf, otypes=[float])


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _ERF(x / math.sqrt(2.0)))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


TRANSFORMS = (
    Transform("abs", np.abs, lambda x: bool(np.any(x < 0)), "|{}|"),
    Transform("square", np.square, _any, "{}²"),
    Transform("sqrt", np.sqrt, lambda x: bool(np.all(x >= 0)), "sqrt({})"),
    Transform("exp", np.exp, lambda x: bool(np.all(np.isfinite(np.exp(x)))), "exp({})"),
    Transform("log", np.log, lambda x: bool(np.all(x >= 0) and np.any(x > 0)), "log({})"),
    Transform("relu", lambda x: np.maximum(x, 0.0), lambda x: bool(np.any(x < 0)), "max({}, 0)"),
    Transform("negative", lambda x: np.minimum(x, 0.0), lambda x: bool(np.any(x > 0)), "min({}, 0)"),
    Transform("sigmoid", _sigmoid, _any, "sigmoid({})"),
    Transform("tanh", np.tanh, _any, "tanh({})"),
    Transform("sign", np.sign, _any, "sign({})"),
    Transform("reciprocal", lambda x: 1.0 / x, lambda x: bool(np.all(x != 0)), "1/{}"),
    Transform("gelu", _gelu, _any, "gelu({})"),
    Transform("gelu_tanh", _gelu_tanh, _any, "gelu_tanh({})"),
    Transform("softplus", _softplus, _any, "softplus({})"),
)

SAID = {
    "abs": phrase("your values are the absolute values of the right ones", zh="你的结果是正确结果的绝对值"),
    "square": phrase("your values are the squares of the right ones", zh="你的结果是正确结果的平方"),
    "sqrt": phrase("your values are the square roots of the right ones", zh="你的结果是正确结果的平方根"),
    "exp": phrase("your values are the exponentials (exp) of the right ones", zh="你的结果是正确结果的指数（exp）"),
    "log": phrase("your values are the logarithms of the right ones", zh="你的结果是正确结果的对数"),
    "relu": phrase(
        "your values are the right ones where these are positive, and 0 elsewhere",
        zh="你的结果在正确结果为正的位置等于正确结果，其余位置是 0",
    ),
    "negative": phrase(
        "your values are the right ones where these are negative, and 0 elsewhere",
        zh="你的结果在正确结果为负的位置等于正确结果，其余位置是 0",
    ),
    "sigmoid": phrase(
        "your values are the sigmoid, 1 / (1 + exp(-r)), of the right ones r",
        zh="你的结果是正确结果 r 的 sigmoid，即 1 / (1 + exp(-r))",
    ),
    "tanh": phrase("your values are the tanh of the right ones", zh="你的结果是正确结果的 tanh"),
    "sign": phrase(
        "your values are the signs (-1, 0 or 1) of the right ones", zh="你的结果是正确结果的符号（-1、0 或 1）"
    ),
    "reciprocal": phrase("your values are 1 divided by the right ones", zh="你的结果是 1 除以正确结果"),
    "gelu": phrase(
        "your values are the GELU, r·Φ(r), of the right ones r", zh="你的结果是正确结果 r 的 GELU，即 r·Φ(r)"
    ),
    "gelu_tanh": phrase(
        "your values are the GELU (its tanh approximation) of the right ones",
        zh="你的结果是正确结果的 GELU（tanh 近似）",
    ),
    "softplus": phrase(
        "your values are the softplus, log(1 + exp(r)), of the right ones r",
        zh="你的结果是正确结果 r 的 softplus，即 log(1 + exp(r))",
    ),
}
CUT = phrase(
    "your values are the right ones with their decimals cut off (rounded toward 0)",
    zh="你的结果是正确结果去掉小数部分（向 0 取整）",
)
CUT_AFTER = phrase(
    "your values are the right ones cut off after {k} decimals (rounded toward 0)",
    zh="你的结果是正确结果在小数点后 {k} 位处截断（向 0 取整）",
)
CLIP_LOW = phrase(
    "where the right values are below {low}, yours are {low}",
    zh="正确结果低于 {low} 的位置，你的结果都是 {low}",
)
CLIP_HIGH = phrase(
    "where the right values are above {high}, yours are {high}",
    zh="正确结果高于 {high} 的位置，你的结果都是 {high}",
)
CLIP_BOTH = phrase(
    "your values are the right ones clipped to the range [{low}, {high}]",
    zh="你的结果是正确结果截断到区间 [{low}, {high}] 内",
)
ROUNDED = phrase(
    "your values are the right ones rounded to {k} decimals", zh="你的结果是正确结果四舍五入到小数点后 {k} 位"
)
ROUNDED_WHOLE = phrase("your values are the right ones rounded to whole numbers", zh="你的结果是正确结果四舍五入成整数")

DECIMALS = range(0, 7)


class Elementwise(Family):
    name = "elementwise"
    rank = 40
    legacy = {"function": ("log", "exp")}

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or not np.all(np.isfinite(R)):
            return
        for transform in TRANSFORMS:
            if transform.defined(R):
                holds = part.maybe(transform.apply) and close(S, transform.apply(R), tol)
                self.test(part, transform.name, holds)
        for k in DECIMALS:
            rounded = np.round(R, k)
            if not close(rounded, R, tol):
                self.test(part, f"round:{k}", part.maybe(_rounding(k)) and close(S, rounded, tol))
            cut = np.trunc(R * 10.0**k) / 10.0**k
            if not close(cut, R, tol):
                self.test(part, f"trunc:{k}", part.maybe(_cutting(k)) and close(S, cut, tol))
        self._clip(part)

    def _clip(self, part: Part) -> None:
        """S = R clipped: below to a floor, above to a ceiling, or both. A side that does not bite on
        an input is not tried there (any bound beyond that input's values would do)."""
        S, R, tol = part.S, part.R, part.tol
        found = _clipped(S, R, tol) if R.size >= 2 else None  # the bound is the student's value: one fits any
        if found is None:
            self.tried(part, "clip:")
            return
        low, high = found
        if low is not None:
            self.tried(part, "clip:low:")
            self.holds(part, f"clip:low:{numbers.key(low)}", {"low": low})
        if high is not None:
            self.tried(part, "clip:high:")
            self.holds(part, f"clip:high:{numbers.key(high)}", {"high": high})
        if low is not None and high is not None:
            self.tried(part, "clip:both:")
            self.holds(part, f"clip:both:{numbers.key(low)}:{numbers.key(high)}", {"low": low, "high": high})

    def level(self, arg: str) -> int:
        return 1 if arg.startswith(("clip:low:", "clip:high:")) else 0

    def sentence(self, arg, relation) -> Text | None:
        if arg in SAID:
            return SAID[arg]
        kind, _sep, rest = arg.partition(":")
        if kind == "round":
            return ROUNDED_WHOLE if rest == "0" else ROUNDED.format(k=int(rest))
        if kind == "trunc":
            return CUT if rest in ("", "0") else CUT_AFTER.format(k=int(rest))
        if kind == "clip":
            side, _sep, bounds = rest.partition(":")
            values = [numbers.two_digits(float(b)) for b in bounds.split(":")]
            if side == "both":
                return CLIP_BOTH.format(low=values[0], high=values[1])
            return CLIP_LOW.format(low=values[0]) if side == "low" else CLIP_HIGH.format(high=values[0])
        return None


def _clipped(S: np.ndarray, R: np.ndarray, tol) -> tuple[float | None, float | None] | None:
    """(floor, ceiling) -- each None where that side does not bite -- when S is R clipped; else None.
    A floor or ceiling of 0 alone is max(r, 0) or min(r, 0), said as such."""
    if S.shape != R.shape or not np.all(np.isfinite(S)) or not np.all(np.isfinite(R)):
        return None
    d = differ(S, R, tol)
    up, down = d & (S > R), d & (S < R)
    low = _constant(S[up], tol) if up.any() else None
    high = _constant(S[down], tol) if down.any() else None
    if (up.any() and low is None) or (down.any() and high is None) or (low is None and high is None):
        return None
    clipped = R
    if low is not None:
        clipped = np.maximum(clipped, low)
    if high is not None:
        clipped = np.minimum(clipped, high)
    if not close(S, clipped, tol) or (low is not None and high is not None and low >= high):
        return None
    zero = tol[1] * 10
    if (low is not None and high is None and abs(low) <= zero) or (
        high is not None and low is None and abs(high) <= zero
    ):
        return None
    return low, high


def _rounding(k: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda r: np.round(r, k)


def _cutting(k: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda r: np.trunc(r * 10.0**k) / 10.0**k


def _constant(values: np.ndarray, tol) -> float | None:
    """The one value all of ``values`` are (within tolerance), or None."""
    first = float(values.flat[0])
    if np.all(np.abs(values - first) <= tol[1] + tol[0] * abs(first)):
        return first
    return None


FAMILY = Elementwise()
