"""Lost zeros: where the right values are 0, none of the student's is (a boolean mask added, not applied)."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations.family import Family, Part
from gradekit.i18n.text import Text, phrase

ZEROS_LOST = phrase("where the right values are 0, none of yours is", zh="正确结果为 0 的位置，你的结果没有一个是 0")


class Zeros(Family):
    name = "zeros"
    rank = 70

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape:
            return
        zero = R == 0
        if not np.any(zero) or np.all(zero):
            return
        self.test(part, "lost", bool(np.all(np.abs(np.nan_to_num(S[zero], nan=1.0)) > tol[1])))

    def sentence(self, arg, relation) -> Text | None:
        return ZEROS_LOST


FAMILY = Zeros()
