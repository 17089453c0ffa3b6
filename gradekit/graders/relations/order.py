"""The right values in another order: transposed (the last two axes swapped, or all axes reversed as
``.T`` does), reversed or moved one place along an axis (or as many places as an integer input
says: a radius, a lag), the slices along an axis in another order,
reshaped, or any other order."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import words
from gradekit.graders.relations.family import Family, Part, axis_of
from gradekit.graders.relations.values import close, finite, slices
from gradekit.i18n.text import Text, phrase

TRANSPOSE = phrase(
    "your values are the transpose of the right ones (the last two axes swapped)",
    zh="你的结果是正确结果的转置（最后两个轴对调了）",
)
ALL_AXES = phrase(
    "your values are the right ones with the order of all their axes reversed (what .T does)",
    zh="你的结果是正确结果把所有轴的顺序倒过来（也就是 .T 的效果）",
)
FLIP = phrase("your values are the right ones in reverse order along {axis}", zh="你的结果是正确结果沿{axis}倒序排列")
ROLL_ON = phrase(
    "your values are the right ones moved one place along {axis}: your entry i + 1 is the right entry i",
    zh="你的结果是正确结果沿{axis}挪了一位：你的第 i + 1 个是正确结果的第 i 个",
)
ROLL_BACK = phrase(
    "your values are the right ones moved one place along {axis}: your entry i is the right entry i + 1",
    zh="你的结果是正确结果沿{axis}挪了一位：你的第 i 个是正确结果的第 i + 1 个",
)
ROLL_BY_ON = phrase(
    "your values are the right ones moved {k} places along {axis}: your entry i + {k} is the right entry i",
    zh="你的结果是正确结果沿{axis}挪了 {k} 位：你的第 i + {k} 个是正确结果的第 i 个",
)
ROLL_BY_BACK = phrase(
    "your values are the right ones moved {k} places along {axis}: your entry i is the right entry i + {k}",
    zh="你的结果是正确结果沿{axis}挪了 {k} 位：你的第 i 个是正确结果的第 i + {k} 个",
)
# a move by an input's number of places is said only where that many entries or more are compared
MIN_OVERLAP = 3
SLICES = phrase(
    "your values are the right ones with the slices along {axis} in another order",
    zh="你的结果是正确结果沿{axis}的各个切片换了顺序",
)
ROWS = phrase("your values are the right rows in another order", zh="你的结果是正确结果的各行换了顺序")
COLUMNS = phrase("your values are the right columns in another order", zh="你的结果是正确结果的各列换了顺序")
RESHAPED = phrase(
    "your values are the right ones in the right order, but in the shape {shape}",
    zh="你的结果就是正确结果、顺序也对，只是形状成了 {shape}",
)
RESHAPED_MANY = phrase(
    "your values are the right ones in the right order, but in other shapes ({shapes})",
    zh="你的结果就是正确结果、顺序也对，只是形状各成了 {shapes}",
)
PERMUTED = phrase("your values are the right ones, in another order", zh="你的结果就是正确结果里的那些数，只是顺序不同")


class Order(Family):
    name = "order"
    rank = 50
    legacy = {"function": ("T", "T_all", "flip", "roll", "reshape", "permuted")}

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        ndim = R.ndim
        if ndim >= 2:
            swapped = np.swapaxes(R, -1, -2)
            if not close(swapped, R, tol):
                self.test(part, "T", close(S, swapped, tol))
        if ndim >= 3:
            reversed_axes = R.T
            if reversed_axes.shape != R.shape or not close(reversed_axes, R, tol):
                self.test(part, "T_all", close(S, reversed_axes, tol))
        if S.shape == R.shape:
            for axis in range(ndim):
                if R.shape[axis] < 2:
                    continue
                flipped = np.flip(R, axis)
                if not close(flipped, R, tol):
                    self.per_axis(part, "flip:{}", axis, close(S, flipped, tol))
                head, tail = slices(ndim, axis)
                if not close(R[head], R[tail], tol):
                    on = close(S[tail], R[head], tol) and not close(S[tail], R[tail], tol)
                    back = close(S[head], R[tail], tol) and not close(S[head], R[head], tol)
                    self.per_axis(part, "roll:{}:+1", axis, on)
                    self.per_axis(part, "roll:{}:-1", axis, back)
                self._moved_by_input(part, axis)
                if R.shape[axis] >= 3 and finite(S, R):
                    found = _permutation(S, R, axis, tol)
                    if found is not None:
                        self.per_axis(part, "slices:{}", axis, found, {"ndim": ndim})
        if S.size == R.size and S.shape != R.shape:
            self.test(part, "reshape", close(S, R.reshape(S.shape), tol), {"shape": list(S.shape)})
        if S.size == R.size and S.size >= 3 and finite(S, R):
            distinct = np.unique(np.round(R.ravel() / max(tol[1], 1e-12))).size
            if distinct >= max(3, R.size // 2) and (S.shape != R.shape or not close(S, R, tol)):
                self.test(part, "permuted", close(np.sort(S.ravel()), np.sort(R.ravel()), tol))

    def _moved_by_input(self, part: Part, axis: int) -> None:
        """S moved along ``axis`` by as many places as an integer input says (a radius, a lag): S's entry
        i + k is R's entry i (or S's i is R's i + k), on at least MIN_OVERLAP entries along the axis;
        the k entries at the edge are not compared."""
        S, R, tol = part.S, part.R, part.tol
        n = R.shape[axis]
        for key, k in part.inputs.ints.items():
            if key in part.inputs.axes or not 2 <= k <= n - MIN_OVERLAP:
                continue
            head, tail = np.take(R, range(n - k), axis=axis), np.take(R, range(k, n), axis=axis)
            if close(head, tail, tol):
                continue
            s_head, s_tail = np.take(S, range(n - k), axis=axis), np.take(S, range(k, n), axis=axis)
            on = close(s_tail, head, tol) and not close(s_tail, tail, tol)
            back = close(s_head, tail, tol) and not close(s_head, head, tol)
            self.per_axis(part, "roll:{}:+=" + key, axis, on)
            self.per_axis(part, "roll:{}:-=" + key, axis, back)

    def level(self, arg: str) -> int:
        return 2 if arg == "permuted" else 1 if arg.startswith("slices") else 0

    def alias(self, arg: str, detail: dict) -> str:
        parts = arg.split(":")
        return ":".join(parts[:1] + parts[2:])

    def sentence(self, arg, relation) -> Text | None:
        kind = arg.split(":", 1)[0]
        if kind == "T":
            return TRANSPOSE
        if kind == "T_all":
            return ALL_AXES
        if kind == "reshape":
            shapes = [tuple(shape) for shape in relation.details.get("shape") or [[]]]
            if len(shapes) > 1:
                return RESHAPED_MANY.format(shapes=", ".join(str(shape) for shape in shapes))
            return RESHAPED.format(shape=shapes[0])
        if kind == "permuted":
            return PERMUTED
        axis = axis_of(arg)
        if kind == "flip":
            return FLIP.format(axis=words.axis(axis))
        if kind == "roll":
            by = arg.split(":")[2]
            if by[1:].startswith("="):
                return (ROLL_BY_ON if by[0] == "+" else ROLL_BY_BACK).format(axis=words.axis(axis), k=by[2:])
            return (ROLL_ON if by == "+1" else ROLL_BACK).format(axis=words.axis(axis))
        if kind == "slices":
            ndim = (relation.details.get("ndim") or [0])[0]
            if ndim == 2 and axis == "0":
                return ROWS
            if ndim == 2 and axis in ("1", "last"):
                return COLUMNS
            return SLICES.format(axis=words.axis(axis))
        return None


def _permutation(S: np.ndarray, R: np.ndarray, axis: int, tol) -> bool | None:
    """Whether the slices of S along ``axis`` are those of R in another order (None: R's slices are
    not all different, so no order can be told)."""
    s = np.moveaxis(S, axis, 0).reshape(S.shape[axis], -1)
    r = np.moveaxis(R, axis, 0).reshape(R.shape[axis], -1)
    n = r.shape[0]
    scale = tol[1] + tol[0] * np.abs(r)[None, :, :]
    same_r = np.all(np.abs(r[:, None, :] - r[None, :, :]) <= scale, axis=2)
    if np.count_nonzero(same_r) != n:
        return None
    same = np.all(np.abs(s[:, None, :] - r[None, :, :]) <= scale, axis=2)  # same[i, j]: S slice i is R slice j
    if not np.all(same.sum(axis=1) == 1) or not np.all(same.sum(axis=0) == 1):
        return False
    return not bool(np.all(np.diag(same)))


FAMILY = Order()
