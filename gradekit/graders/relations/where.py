"""Where the values differ, described by a simple predicate: right everywhere but on the diagonal,
above or below it (at j ≥ i + k, j ≤ i - k), in the last row or column, the first k, from k on, one
slice along an axis; or but where the right values are negative, positive or 0 -- and whether the
student's values are 0 there.

Of the predicates that hold every differing entry, the tightest are kept (the fewest
entries): "only in the last row" rather than "only on and below the diagonal". A
predicate that holds everything (the last row of a one-row table) says nothing on that
input and is not tried there. Position predicates read the last two axes as (i, j).
"""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations.family import Family, Part
from gradekit.graders.relations.values import differ
from gradekit.i18n.text import Text, phrase

ONLY = phrase("your values differ from the right ones only {where}", zh="你的结果只在{where}与正确结果不同")
ONLY_ZERO = phrase(
    "your values differ from the right ones only {where}, and are 0 there",
    zh="你的结果只在{where}与正确结果不同，而且那里都是 0",
)

DIAGONAL = phrase("on the diagonal", zh="对角线上")
ON_DIAGONAL = phrase("on the diagonal j = i {k}", zh="j = i {k} 这条对角线上")
ABOVE = phrase("above the diagonal (j > i)", zh="对角线上方（j > i）")
ON_ABOVE = phrase("on and above the diagonal (j ≥ i)", zh="对角线及其上方（j ≥ i）")
BELOW = phrase("below the diagonal (j < i)", zh="对角线下方（j < i）")
ON_BELOW = phrase("on and below the diagonal (j ≤ i)", zh="对角线及其下方（j ≤ i）")
AT = phrase("at the entries (i, j) with {condition}", zh="满足 {condition} 的位置 (i, j)")

ROW = {
    "last": phrase("in the last row", zh="最后一行"),
    "first": phrase("in the first row", zh="第一行"),
    "index": phrase("in the row with index {k}", zh="索引为 {k} 的那一行"),
    "from": phrase("in the rows from index {k} on", zh="索引 {k} 及以后的各行"),
    "upto": phrase("in the first {k} rows", zh="前 {k} 行"),
    "lastk": phrase("in the last {k} rows", zh="最后 {k} 行"),
}
COLUMN = {
    "last": phrase("in the last column", zh="最后一列"),
    "first": phrase("in the first column", zh="第一列"),
    "index": phrase("in the column with index {k}", zh="索引为 {k} 的那一列"),
    "from": phrase("in the columns from index {k} on", zh="索引 {k} 及以后的各列"),
    "upto": phrase("in the first {k} columns", zh="前 {k} 列"),
    "lastk": phrase("in the last {k} columns", zh="最后 {k} 列"),
}
SLICE = {
    "last": phrase("in the last slice along axis {axis}", zh="沿第 {axis} 个轴的最后一个切片"),
    "first": phrase("in the first slice along axis {axis}", zh="沿第 {axis} 个轴的第一个切片"),
    "index": phrase("in the slice with index {k} along axis {axis}", zh="沿第 {axis} 个轴索引为 {k} 的切片"),
    "from": phrase("in the slices from index {k} on along axis {axis}", zh="沿第 {axis} 个轴索引 {k} 及以后的切片"),
    "upto": phrase("in the first {k} slices along axis {axis}", zh="沿第 {axis} 个轴的前 {k} 个切片"),
    "lastk": phrase("in the last {k} slices along axis {axis}", zh="沿第 {axis} 个轴的最后 {k} 个切片"),
}
VALUE = {
    "neg": phrase("where the right values are negative", zh="正确结果为负的位置"),
    "pos": phrase("where the right values are positive", zh="正确结果为正的位置"),
    "zero": phrase("where the right values are 0", zh="正确结果为 0 的位置"),
}


class Where(Family):
    name = "where"
    rank = 150

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or R.ndim == 0 or R.size < 2:
            return
        D = differ(S, R, tol)
        if not D.any():
            return
        found: list[tuple[str, int]] = []  # (predicate, how many entries it holds) of those holding D
        if R.ndim >= 2 and R.shape[-1] * R.shape[-2] >= 2:
            self.tried(part, "diag:")
            self.tried(part, "above:")
            self.tried(part, "below:")
            found += _diagonals(D)
        for axis, n in enumerate(R.shape):
            if n >= 2:
                self.tried(part, f"a{axis}:")
                found += _slices(D, axis)
        for key, P in (("neg", R < 0), ("pos", R > 0), ("zero", R == 0)):
            if P.any() and not P.all():
                holds = not np.any(D & ~P)
                if holds:
                    found.append((key, int(P.sum())))
                else:
                    self.test(part, key, False)
                    self.test(part, key + ":zero", False)
        if not found:
            return
        fewest = min(count for _key, count in found)
        zero = bool(np.all(S[D] == 0))
        for key, count in found:
            self.test(part, key, count == fewest, {"ndim": R.ndim})
            self.test(part, key + ":zero", count == fewest and zero, {"ndim": R.ndim})

    def level(self, arg: str) -> int:
        return 0 if arg.endswith(":zero") else 1

    def specific(self, arg: str) -> bool:
        return False  # where the values differ, not what they are: the searches that call go on

    def sentence(self, arg, relation) -> Text | None:
        zero = arg.endswith(":zero")
        predicate = arg.removesuffix(":zero")
        ndim = (relation.details.get("ndim") or [0])[0]
        where = _where(predicate, ndim)
        if where is None:
            return None
        return (ONLY_ZERO if zero else ONLY).format(where=where)


def _diagonals(D: np.ndarray) -> list[tuple[str, int]]:
    """The diagonal predicates that hold every differing entry of the last two axes: one diagonal
    j - i = k, or the entries above or below one."""
    rows, cols = D.shape[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]  # j - i
    hit = np.any(D.reshape(-1, rows, cols), axis=0)
    ks = offset[hit]
    low, high = int(ks.min()), int(ks.max())
    lead = D.size // (rows * cols)
    out = []
    for key, P in ((f"diag:{low}", offset == low), (f"above:{low}", offset >= low), (f"below:{high}", offset <= high)):
        if key.startswith("diag") and low != high:
            continue
        if P.all():
            continue
        out.append((key, int(P.sum()) * lead))
    return out


def _slices(D: np.ndarray, axis: int) -> list[tuple[str, int]]:
    """The predicates along ``axis`` that hold every differing entry: the indices where any differs."""
    n = D.shape[axis]
    rest = D.size // n
    index = np.flatnonzero(np.any(np.moveaxis(D, axis, 0).reshape(n, -1), axis=1))
    if index.size == n:
        return []
    first, last, count = int(index[0]), int(index[-1]), int(index.size)
    contiguous = last - first + 1 == count
    out = []
    if count == 1:
        out.append(
            (f"a{axis}:last" if last == n - 1 else f"a{axis}:first" if first == 0 else f"a{axis}:index:{first}", rest)
        )
    elif contiguous and last == n - 1:
        out.append((f"a{axis}:from:{first}", count * rest))
        out.append((f"a{axis}:lastk:{count}", count * rest))
    elif contiguous and first == 0:
        out.append((f"a{axis}:upto:{count}", count * rest))
    return out


def _where(predicate: str, ndim: int) -> Text | None:
    kind, _sep, rest = predicate.partition(":")
    if kind in VALUE:
        return VALUE[kind]
    if kind in ("diag", "above", "below"):
        k = int(rest)
        if kind == "diag":
            return DIAGONAL if k == 0 else ON_DIAGONAL.format(k=f"+ {k}" if k > 0 else f"- {-k}")
        known = {("above", 1): ABOVE, ("above", 0): ON_ABOVE, ("below", -1): BELOW, ("below", 0): ON_BELOW}
        if (kind, k) in known:
            return known[(kind, k)]
        sign = f"+ {k}" if k > 0 else f"- {-k}"
        return AT.format(condition=f"j {'≥' if kind == 'above' else '≤'} i {sign}")
    if kind.startswith("a") and kind[1:].isdigit():
        axis = int(kind[1:])
        which, _sep, index = rest.partition(":")
        table = ROW if ndim == 2 and axis == 0 else COLUMN if ndim == 2 and axis == 1 else SLICE
        said = table.get(which)
        if said is None:
            return None
        return said.format(k=index, axis=axis)
    return None


FAMILY = Where()
