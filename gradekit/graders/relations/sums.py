"""What the values sum to: each slice along an axis of the student's values sums to one same number,
where the right ones' slices do not -- values normalised along another axis than the right one (a
softmax taken down the columns). The number is the student's own sum, said to two digits."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import numbers, words
from gradekit.graders.relations.family import Family, Part, axis_of
from gradekit.graders.relations.values import close, finite
from gradekit.i18n.text import Text, phrase

SUM = phrase(
    "each slice of your values along {axis} sums to {total}, and the right ones' slices do not",
    zh="你的结果沿{axis}的每个切片之和都是 {total}，而正确结果的切片不是",
)
COLUMNS = phrase(
    "each column of your values sums to {total}, and the right ones' columns do not",
    zh="你的结果每一列之和都是 {total}，而正确结果的列不是",
)
ROWS = phrase(
    "each row of your values sums to {total}, and the right ones' rows do not",
    zh="你的结果每一行之和都是 {total}，而正确结果的行不是",
)
SAME = phrase(
    "each slice of your values along {axis} sums to one same number, and the right ones' slices do not",
    zh="你的结果沿{axis}的每个切片之和都相同，而正确结果的切片不是",
)


class Sums(Family):
    name = "sums"
    rank = 144  # after what the values are (a function on changed inputs); before a factor per row and column

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or S.ndim < 2 or not finite(S, R):
            return
        for axis in range(S.ndim):
            if S.shape[axis] < 2 or S.size // S.shape[axis] < 2:
                continue
            s, r = S.sum(axis=axis), R.sum(axis=axis)
            total = float(s.flat[0])
            holds = (
                abs(total) > tol[1]
                and close(s, np.full_like(s, total), tol)
                and not close(r, np.full_like(r, float(r.flat[0])), tol)
            )
            detail = {"total": numbers.two_digits(total), "axis": axis, "ndim": S.ndim} if holds else None
            self.per_axis(part, "same:{}", axis, holds, detail)

    def alias(self, arg: str, detail: dict) -> str:
        return f"same:{detail.get('axis', arg)}"

    def specific(self, arg: str) -> bool:
        return False  # what the values add up to, not what they are: the searches that call go on

    def sentence(self, arg, relation) -> Text | None:
        totals = relation.details.get("total", [])
        axes, ndims = relation.details.get("axis", []), relation.details.get("ndim", [])
        if len(totals) == 1 and ndims == [2] and len(axes) == 1:  # a table: its columns, or its rows
            return (COLUMNS if axes[0] == 0 else ROWS).format(total=totals[0])
        axis = words.axis(axis_of(arg))
        return SUM.format(axis=axis, total=totals[0]) if len(totals) == 1 else SAME.format(axis=axis)


FAMILY = Sums()
