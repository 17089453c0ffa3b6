"""A shift: S = R + c for a constant c (a bias the exercise does not have), the same on every input
or changing from input to input."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import numbers
from gradekit.graders.relations.family import Family, Part
from gradekit.graders.relations.values import finite
from gradekit.i18n.text import Text, phrase

PLUS_C = phrase("your values are the right ones plus {c}", zh="你的结果是正确结果加上 {c}")
PLUS_ANY = phrase(
    "your values are the right ones plus a constant that changes from check to check ({constants})",
    zh="你的结果是正确结果加上一个常数，这个常数每项检查都不一样（{constants}）",
)


class Shift(Family):
    name = "shift"
    rank = 20

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or S.size < 2 or not finite(S, R):
            return
        d = S - R
        d0 = float(np.mean(d))
        slack = tol[1] + tol[0] * float(np.max(np.abs(R)))
        holds = bool(np.all(np.abs(d - d0) <= slack)) and abs(d0) > slack
        self.test(part, "any", holds, {"c": d0})
        self.tried(part, "c:")
        if holds:
            self.holds(part, f"c:{d0:.6g}", {"c": d0})

    def level(self, arg: str) -> int:
        return 1 if arg == "any" else 0

    def specific(self, arg: str) -> bool:
        return arg != "any"

    def sentence(self, arg, relation) -> Text | None:
        if arg == "any":
            return PLUS_ANY.format(
                constants=", ".join(numbers.two_digits(c) for c in relation.details.get("c", [])[:3])
            )
        return PLUS_C.format(c=numbers.two_digits(float(arg[2:])))


FAMILY = Shift()
