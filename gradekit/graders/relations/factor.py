"""A factor: S = c·R, c a simple number (2, ½, ln 2), a simple expression of the inputs' sizes
(1/n, √d, 2/√d, d/(d - 1) ...), any other constant, 0, −1, or a factor that changes from input to input.

The factor is fitted by least squares on each check; it is named when it is a
simple number (:mod:`.numbers`), else said to two significant digits.
"""

from __future__ import annotations

import math

import numpy as np

from gradekit.graders.relations import numbers
from gradekit.graders.relations.family import Family, Part
from gradekit.graders.relations.values import close, finite
from gradekit.i18n.text import Text, phrase

DIVIDED = phrase("your values are the right ones divided by {expr}", zh="你的结果是正确结果除以 {expr}")
MULTIPLIED = phrase("your values are the right ones multiplied by {expr}", zh="你的结果是正确结果乘以 {expr}")
DIVIDED_SIZES = phrase(
    "your values are the right ones divided by {expr} ({sizes})", zh="你的结果是正确结果除以 {expr}（{sizes}）"
)
MULTIPLIED_SIZES = phrase(
    "your values are the right ones multiplied by {expr} ({sizes})", zh="你的结果是正确结果乘以 {expr}（{sizes}）"
)
TIMES_C = phrase("your values are the right ones multiplied by {c}", zh="你的结果是正确结果乘以 {c}")
OPPOSITE = phrase("your values are the right ones with the opposite sign", zh="你的结果是正确结果取相反数")
ZERO = phrase("your values are all zero, the right ones are not", zh="你的结果全是 0，正确结果却不是")
PROPORTIONAL = phrase(
    "your values are proportional to the right ones, with a factor that changes from check to check ({factors})",
    zh="你的结果与正确结果成正比，但比例系数每项检查都不一样（{factors}）",
)


class Factor(Family):
    name = "factor"
    rank = 10

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or not finite(S, R):
            return
        nonzero = int(np.count_nonzero(np.abs(R) > tol[1]))
        if nonzero == 0:
            return
        c = float(np.sum(S * R) / np.sum(R * R))
        holds = close(S, c * R, tol)
        zero = holds and close(S, np.zeros_like(S), tol)
        self.test(part, "zero", zero)
        self.tried(part, "c:")
        if nonzero >= 2:
            self.test(part, "any", holds and not zero, {"c": c})
        if holds and not zero and nonzero >= 2 and not math.isclose(c, 1.0, rel_tol=10 * tol[0]):
            # a factor fitted to one value fits any value: said only of two or more
            key = "c:-1" if math.isclose(c, -1.0, rel_tol=10 * tol[0]) else f"c:{c:.6g}"
            self.holds(part, key, {"c": c})
        found = (
            {e.key for e in numbers.named(c, part.inputs.sizes, max(10 * tol[0], 1e-6))}
            if holds and not zero
            else set()
        )
        for expression in numbers.expressions(part.inputs.sizes):
            held = expression.key in found
            self.test(part, "expr:" + expression.key, held, expression.detail if held else None)

    def level(self, arg: str) -> int:
        """A size's simple form, 0, -1 first; a size off by one; any other constant; a changing factor."""
        if arg == "any":
            return 3
        if arg.startswith("c:") and arg != "c:-1":
            return 2
        return 1 if arg.startswith("expr:") and numbers.off_by(arg) else 0

    def specific(self, arg: str) -> bool:
        return self.level(arg) <= 1

    def alias(self, arg: str, detail: dict) -> str:
        return "expr:" + str(detail.get("form", arg)) if arg.startswith("expr:") else arg

    def sentence(self, arg, relation) -> Text | None:
        details = relation.details
        if arg == "zero":
            return ZERO
        if arg == "c:-1":
            return OPPOSITE
        if arg == "any":
            return PROPORTIONAL.format(factors=", ".join(numbers.two_digits(c) for c in details.get("c", [])[:3]))
        if arg.startswith("c:"):
            return TIMES_C.format(c=numbers.two_digits(float(arg[2:])))
        if arg.startswith("expr:"):
            return expression(arg[5:], details)
        return None


def expression(text: str, details: dict) -> Text:
    """ "divided by sqrt(d_k) (d_k = 3, 8)": a number below 1 is said as a division when it reads so."""
    sizes = {size: ns for size, ns in details.get("sizes", {}).items() if size in text}
    values = "; ".join(f"{size} = {', '.join(str(n) for n in ns)}" for size, ns in sizes.items())
    if len(sizes) == 1 and text.removeprefix("1/") == next(iter(sizes)):  # "divided by n_k (= 7, 5)"
        values = "= " + ", ".join(str(n) for n in next(iter(sizes.values())))
    divides = text.startswith("1/")
    shown = text[2:] if divides else text
    if not values:
        return (DIVIDED if divides else MULTIPLIED).format(expr=shown)
    return (DIVIDED_SIZES if divides else MULTIPLIED_SIZES).format(expr=shown, sizes=values)


FAMILY = Factor()
