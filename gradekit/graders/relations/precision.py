"""Close, not equal: the values agree with the right ones to a few significant digits only (a lower
precision somewhere on the way: float16, values printed and read back, a constant rounded)."""

from __future__ import annotations

import math

import numpy as np

from gradekit.graders.relations.family import Family, Part
from gradekit.graders.relations.values import finite
from gradekit.i18n.text import Text, phrase

DIGITS = phrase(
    "your values agree with the right ones to about {digits} significant digits only",
    zh="你的结果与正确结果只在大约前 {digits} 位有效数字上一致",
)
FEWEST = 2  # closer than this is not "close"


class Precision(Family):
    name = "precision"
    rank = 147  # after the relations that say exactly what the values are (float16 of one input ...)

    def search(self, part: Part) -> None:
        S, R = part.S, part.R
        if S.shape != R.shape or not finite(S, R):
            return
        scale = float(np.max(np.abs(R)))
        if scale == 0:
            return
        error = float(np.max(np.abs(S - R))) / scale
        digits = math.floor(-math.log10(error)) if error > 0 else 0
        self.test(part, "digits", digits >= FEWEST, {"digits": digits})

    def specific(self, arg: str) -> bool:
        return False  # close, not what made them: the searches that call go on

    def sentence(self, arg, relation) -> Text | None:
        seen = sorted(relation.details.get("digits", []))
        if not seen:
            return None
        return DIGITS.format(digits=str(seen[0]) if seen[0] == seen[-1] else f"{seen[0]}–{seen[-1]}")


FAMILY = Precision()
