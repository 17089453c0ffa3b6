"""An offset by an input: S = R ± A for an input A of the call, or a product of inputs (X @ W_v @ W_o):
a residual added back, a mask added to the scores."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations.family import Family, Part
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text, phrase

MINUS_INPUT = phrase("your values minus {name} are the right ones", zh="你的结果减去 {name} 就是正确结果")
PLUS_INPUT = phrase("your values plus {name} are the right ones", zh="你的结果加上 {name} 就是正确结果")


class Offset(Family):
    name = "offset"
    rank = 30

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or not part.inputs.arrays:
            return
        d = S - R
        for key, A in part.inputs.offsets():
            if A.shape != S.shape or close(A, np.zeros_like(A), tol):
                continue
            self.test(part, f"+{key}", close(d, A, tol))
            self.test(part, f"-{key}", close(d, -A, tol))

    def sentence(self, arg, relation) -> Text | None:
        return (MINUS_INPUT if arg.startswith("+") else PLUS_INPUT).format(name=arg[1:])


FAMILY = Offset()
