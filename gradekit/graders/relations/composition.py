"""Compositions: the right function applied again to its own result (a softmax of a softmax), an
elementwise function of the right value times a factor (the squares of the right ones, divided by 2),
and the right values times one number plus another.

The first calls the reference (once per input of the result's shape); the others
compare values only.
"""

from __future__ import annotations

import math

import numpy as np

from gradekit.graders.relations import numbers
from gradekit.graders.relations.elementwise import SAID, TRANSFORMS
from gradekit.graders.relations.family import Cost, Family, Part, Whole
from gradekit.graders.relations.values import close, finite
from gradekit.i18n.text import Text, phrase

AGAIN = phrase(
    "your values are what the right function gives when it is applied again to its own result (in place of {name})",
    zh="你的结果是把正确的函数再作用一次于它自己的结果（代替 {name}）得到的",
)
TIMES = phrase("{clause}, multiplied by {c}", zh="{clause}，再乘以 {c}")
DIVIDED = phrase("{clause}, divided by {c}", zh="{clause}，再除以 {c}")
AFFINE = phrase(
    "your values are the right ones multiplied by {a}, plus {b}", zh="你的结果是正确结果乘以 {a}，再加上 {b}"
)
AFFINE_ANY = phrase(
    "your values are the right ones multiplied by {a}, plus a constant that changes from check to check ({b})",
    zh="你的结果是正确结果乘以 {a}，再加上一个每项检查都不一样的常数（{b}）",
)
AFFINE_MINUS = phrase(
    "your values are the right ones multiplied by {a}, minus {b}", zh="你的结果是正确结果乘以 {a}，再减去 {b}"
)


class Composition(Family):
    name = "composition"
    rank = 120
    cost = Cost(reference=8)

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or not finite(S, R) or R.size < 2:
            return
        for transform in TRANSFORMS:
            if not transform.defined(R):
                continue
            self.tried(part, f"times:{transform.name}:")
            with np.errstate(all="ignore"):
                few = transform.apply(part.R_few)
            den_few = float(np.sum(few * few))
            if np.all(np.isfinite(few)) and den_few > 0:
                c_few = float(np.sum(part.S_few * few) / den_few)
                if not close(part.S_few, c_few * few, tol):
                    continue  # no one c makes c·t(R) on the few entries: nor anywhere
            with np.errstate(all="ignore"):
                T = transform.apply(R)
            den = float(np.sum(T * T))
            if not np.all(np.isfinite(T)) or den == 0:
                continue
            c = float(np.sum(S * T) / den)
            if math.isclose(c, 1.0, rel_tol=1e-3) or not close(S, c * T, tol) or close(S, np.zeros_like(S), tol):
                continue
            for expression in numbers.named(c, part.inputs.sizes, max(10 * tol[0], 1e-6)):
                self.holds(part, f"times:{transform.name}:expr:{expression.key}", {**expression.detail, "c": c})
            self.holds(part, f"times:{transform.name}:c:{numbers.key(c)}", {"c": c})
        rc = R - R.mean()
        den = float(np.sum(rc * rc))
        if den > 0 and R.size >= 3:  # a line through two values always fits them
            a = float(np.sum((S - S.mean()) * rc) / den)
            b = float(S.mean() - a * R.mean())
            slack = tol[1] + tol[0] * float(np.max(np.abs(R)))
            self.tried(part, "affine:")
            if (
                close(S, a * R + b, tol)
                and not math.isclose(a, 1.0, rel_tol=10 * tol[0])
                and abs(b) > slack
                and not math.isclose(a, 0.0, abs_tol=1e-9)
            ):
                self.holds(part, f"affine:{numbers.key(a)}:{numbers.key(b)}", {"a": a, "b": b})
                self.holds(part, f"affine:{numbers.key(a)}:any", {"a": a, "b": b})

    def search_call(self, whole: Whole) -> None:
        for key, A in whole.inputs.arrays.items():
            for index, R in enumerate(whole.expected):
                if R.shape != A.shape or close(R, A, whole.tol) or not whole.wants(self, f"again:{key}:{index}"):
                    continue
                out = whole.reference(self, whole.inputs.args_with(**{key: R}))
                if out is not None:
                    self.compare(whole, f"again:{key}:{index}", out)

    def level(self, arg: str) -> int:
        if arg.startswith("again"):
            return 0
        if arg.endswith(":any"):
            return 3
        if ":expr:" in arg:
            return 1 if numbers.off_by(arg) else 0
        return 2

    def specific(self, arg: str) -> bool:
        return True

    def alias(self, arg: str, detail: dict) -> str:
        if ":expr:" in arg:
            return arg.split(":expr:", 1)[0] + ":expr:" + str(detail.get("form", ""))
        return arg

    def sentence(self, arg, relation) -> Text | None:
        kind, _sep, rest = arg.partition(":")
        if kind == "again":
            return AGAIN.format(name=rest.split(":", 1)[0])
        if kind == "affine" and rest.endswith(":any"):
            shown = ", ".join(numbers.two_digits(b) for b in relation.details.get("b", [])[:3])
            return AFFINE_ANY.format(a=numbers.two_digits(float(rest.split(":")[0])), b=shown)
        if kind == "affine":
            a, b = rest.split(":")
            shown = numbers.two_digits(float(a))
            if float(b) < 0:
                return AFFINE_MINUS.format(a=shown, b=numbers.two_digits(-float(b)))
            return AFFINE.format(a=shown, b=numbers.two_digits(float(b)))
        if kind == "times":
            name, _sep, number = rest.partition(":")
            clause = SAID.get(name)
            if clause is None:
                return None
            if number.startswith("expr:"):
                text = number[5:]
                if text.startswith("1/"):
                    return DIVIDED.format(clause=clause, c=text[2:])
                return TIMES.format(clause=clause, c=text)
            return TIMES.format(clause=clause, c=numbers.two_digits(float(number[2:])))
        return None


FAMILY = Composition()
