"""Where the values differ, described by a simple predicate: right everywhere but on the diagonal,
above or below it (at j ≥ i + k, j ≤ i - k), near it or far from it (|j - i| ≤ k, ≥ k) -- on a table
whose rows and columns count the same things only (:func:`alike`) --, in the last row or column, the
first k, from k on, one slice along an axis; or but where the right values are negative, positive
or 0 -- and whether the student's values are 0 there.

Also: where the student's values are 0 and the right ones are not, when that is exactly
one predicate's entries ("your values are 0 on the diagonal": a token kept from itself),
whatever the values are elsewhere. Every predicate that holds all the differing entries holds on a check; of those that
hold on every check, the tightest over the checks is said (:meth:`Where.prefer`: the
smallest share of the entries), "only in the last row" rather than "only on and below
the diagonal". A predicate that holds everything (the last row of a one-row table)
says nothing on that input and is not tried there. Position predicates read the last
two axes as (i, j). Where the values differ, they may be 0, or the right ones times one
number (a leaky ReLU: where the right values are negative, times 0.01).
"""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import numbers
from gradekit.graders.relations.family import Family, Part
from gradekit.graders.relations.values import differ
from gradekit.i18n.text import Text, phrase

ONLY = phrase("your values differ from the right ones only {where}", zh="你的结果只在{where}与正确结果不同")
ONLY_TIMES = phrase(
    "your values differ from the right ones only {where}, and are the right ones multiplied by {c} there",
    zh="你的结果只在{where}与正确结果不同，而且那里是正确结果乘以 {c}",
)
ZEROED = phrase(
    "your values are 0 {where}, where the right ones are not (and they may differ elsewhere too)",
    zh="你的结果在{where}是 0，而正确结果在那里不是 0（其他位置也可能不同）",
)
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


BAND = 4  # how far a band's ends are tried beyond the differing diagonals
DIAGONALS = ("diag", "above", "below", "band", "near", "far")  # the predicates on (i, j) of the last two axes


def alike(shape: tuple[int, ...], arrays: dict[str, np.ndarray]) -> bool:
    """Whether the last two axes count the same kind of things, so that a diagonal, a band or a triangle
    means something: a square table, or one whose rows and columns are each as many as the rows of an
    input table (queries and keys) and as wide as none (on queries × features, "j ≤ i - 2" would be a
    coincidence of the sizes)."""
    if len(shape) < 2 or min(shape[-2:]) < 2:
        return False
    rows, cols = shape[-2:]
    if rows == cols:
        return True
    tables = [a for a in arrays.values() if a.ndim >= 2]
    counts = {a.shape[-2] for a in tables}
    widths = {a.shape[-1] for a in tables} | {a.shape[0] for a in arrays.values() if a.ndim == 1}
    return {rows, cols} <= counts and not {rows, cols} & widths


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
            for kind in DIAGONALS:  # tried (and ruled out where they do not hold) on every table
                self.tried(part, kind + ":")
            if alike(R.shape, part.inputs.arrays):
                found += _diagonals(D)
        for axis, n in enumerate(R.shape):
            if n >= 2:
                self.tried(part, f"a{axis}:")
                found += _slices(D, axis)
        for key, P in (("neg", R < 0), ("pos", R > 0), ("zero", R == 0)):
            if P.any() and not P.all():
                if not np.any(D & ~P):
                    found.append((key, int(P.sum())))
                else:
                    self.tried(part, key)
        for key, count in found:
            detail = {"ndim": R.ndim, "share": count / R.size}
            self.test(part, key, True, detail)
            self.tried(part, key + ":")
            # what the values are there: at every entry of the predicate, not only where they differ
            P = _entries(key, R.shape) if key not in VALUE else {"neg": R < 0, "pos": R > 0, "zero": R == 0}[key]
            there = _there(S[P], R[P], tol) if P is not None else None
            if there is not None:
                self.holds(part, f"{key}:{there[0]}", {**detail, **there[1]})
        self._zeroed(part, tol)

    def _zeroed(self, part: Part, tol) -> None:
        """Where the student's values are 0 and the right ones are not -- a mask applied where it should
        not be: a predicate all of whose entries the student's values are 0 at, and that holds every
        entry where only theirs are (the values may differ elsewhere too)."""
        S, R = part.S, part.R
        self.tried(part, "zeroed:")
        zero = np.abs(S) <= tol[1]
        Z = zero & ~(np.abs(R) <= tol[1])
        if not Z.any() or Z.all() or R.ndim < 2:
            return
        diagonals = _diagonals(Z) if alike(Z.shape, part.inputs.arrays) else []
        for key, _count in diagonals + [p for axis in range(Z.ndim) for p in _slices(Z, axis)]:
            P = _entries(key, Z.shape)
            if P is not None and np.all(zero[P]):
                self.holds(part, f"zeroed:{key}", {"ndim": R.ndim, "share": float(P.mean())})

    def level(self, arg: str) -> int:
        if arg.startswith("zeroed:"):
            return 2
        return 0 if arg.count(":") > _colons(arg) else 1

    def prefer(self, arg: str, details: list[dict]) -> float:
        """The tightest predicate first: the smallest share of the entries, over the checks."""
        shares = [d.get("share", 1.0) for d in details]
        return sum(shares) / len(shares) if shares else 1.0

    def specific(self, arg: str) -> bool:
        return False  # where the values differ, not what they are: the searches that call go on

    def sentence(self, arg, relation) -> Text | None:
        if arg.startswith("zeroed:"):
            where = _where(arg[7:], (relation.details.get("ndim") or [0])[0])
            return ZEROED.format(where=where) if where is not None else None
        head = ":".join(arg.split(":")[: _colons(arg) + 1])
        qualifier = arg[len(head) + 1 :]
        ndim = (relation.details.get("ndim") or [0])[0]
        where = _where(head, ndim)
        if where is None:
            return None
        if qualifier == "zero":
            return ONLY_ZERO.format(where=where)
        if qualifier.startswith("times:"):
            return ONLY_TIMES.format(where=where, c=numbers.two_digits(float(qualifier[6:])))
        return ONLY.format(where=where)


def _signed(k: int) -> str:
    return f"+ {k}" if k >= 0 else f"- {-k}"


def _colons(arg: str) -> int:
    """How many colons the predicate itself has (``a0:from:3`` two, ``diag:1`` one, ``neg`` none)."""
    kind = arg.split(":", 1)[0]
    if kind in VALUE:
        return 0
    if kind == "band":
        return 2
    if kind in ("diag", "above", "below", "near", "far"):
        return 1
    which = arg.split(":")[1] if ":" in arg else ""
    return 1 if which in ("last", "first") else 2


def _there(S: np.ndarray, R: np.ndarray, tol) -> tuple[str, dict] | None:
    """What the student's values are where they differ: 0, or the right ones times one number."""
    if np.all(S == 0):
        return "zero", {}
    if not (np.all(np.isfinite(S)) and np.all(np.isfinite(R))) or np.any(np.abs(R) <= tol[1]):
        return None
    c = float(np.sum(S * R) / np.sum(R * R))
    if np.all(np.abs(S - c * R) <= tol[1] + tol[0] * np.abs(S)):
        return f"times:{numbers.key(c)}", {"c": c}
    return None


def _entries(key: str, shape: tuple[int, ...]) -> np.ndarray | None:
    """The entries a predicate of :func:`_diagonals` or :func:`_slices` holds, as a boolean array."""
    kind, _sep, rest = key.partition(":")
    if kind == "band":
        rows, cols = shape[-2:]
        offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
        low, high = (int(v) for v in rest.split(":"))
        return np.broadcast_to((offset >= low) & (offset <= high), shape)
    if kind in ("diag", "above", "below", "near", "far"):
        rows, cols = shape[-2:]
        offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
        k = int(rest)
        P = {
            "diag": offset == k,
            "above": offset >= k,
            "below": offset <= k,
            "near": np.abs(offset) <= k,
            "far": np.abs(offset) >= k,
        }[kind]
        return np.broadcast_to(P, shape)
    if kind.startswith("a") and kind[1:].isdigit():
        axis, n = int(kind[1:]), shape[int(kind[1:])]
        which, _sep, count = rest.partition(":")
        index = {"last": [n - 1], "first": [0]}.get(which)
        if index is None:
            m = int(count)
            index = {"index": [m], "upto": list(range(m)), "from": list(range(m, n)), "lastk": list(range(n - m, n))}[
                which
            ]
        P = np.zeros(shape, dtype=bool)
        where: list = [slice(None)] * len(shape)
        where[axis] = index
        P[tuple(where)] = True
        return P
    return None


def _diagonals(D: np.ndarray) -> list[tuple[str, int]]:
    """The diagonal predicates that hold every differing entry of the last two axes: one diagonal
    j - i = k, or the entries above one, or below one."""
    rows, cols = D.shape[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]  # j - i
    hit = np.any(D.reshape(-1, rows, cols), axis=0)
    ks = offset[hit]
    low, high = int(ks.min()), int(ks.max())
    lead = D.size // (rows * cols)
    candidates = [(f"diag:{low}", offset == low)] if low == high else []
    # the diagonals from j = i + l to j = i + h around those that differ, a few more on either side (so that
    # a band found on a small table is the same band on a larger one)
    candidates += [
        (f"band:{lo}:{hi}", (offset >= lo) & (offset <= hi))
        for lo in range(low, low - BAND, -1)
        for hi in range(high, high + BAND)
        if lo != hi
    ]
    candidates += [(f"above:{k}", offset >= k) for k in range(low, -rows, -1)]
    candidates += [(f"below:{k}", offset <= k) for k in range(high, cols)]
    reach = np.abs(offset)
    near = int(np.abs(ks).max())
    candidates += [(f"near:{k}", reach <= k) for k in range(max(near, 1), max(rows, cols))]
    far = int(np.abs(ks).min())
    if far >= 1:
        candidates += [(f"far:{k}", reach >= k) for k in range(far, 0, -1)]
    return [(key, int(P.sum()) * lead) for key, P in candidates if not P.all()]


def _slices(D: np.ndarray, axis: int) -> list[tuple[str, int]]:
    """The predicates along ``axis`` that hold every differing entry: one index, the first k, the
    last k, from k on."""
    n = D.shape[axis]
    rest = D.size // n
    index = np.flatnonzero(np.any(np.moveaxis(D, axis, 0).reshape(n, -1), axis=1))
    if index.size == n:
        return []
    first, last = int(index[0]), int(index[-1])
    out = []
    if first == last:
        out.append(
            (f"a{axis}:last" if last == n - 1 else f"a{axis}:first" if first == 0 else f"a{axis}:index:{first}", rest)
        )
    out += [(f"a{axis}:upto:{k}", k * rest) for k in range(max(2, last + 1), n)]
    # from k on: only when the entries before k are right (k <= first), never when the first differs too
    out += [(f"a{axis}:from:{k}", (n - k) * rest) for k in range(first, 0, -1) if n - k >= 2]
    out += [(f"a{axis}:lastk:{m}", m * rest) for m in range(max(2, n - first), n)]
    return out


def _where(predicate: str, ndim: int) -> Text | None:
    kind, _sep, rest = predicate.partition(":")
    if kind in VALUE:
        return VALUE[kind]
    if kind == "band":
        low, high = (int(v) for v in rest.split(":"))
        side = lambda k: "i" if k == 0 else f"i {_signed(k)}"  # noqa: E731 - "i", not "i + 0"
        return AT.format(condition=f"{side(low)} ≤ j ≤ {side(high)}")
    if kind == "near":
        return AT.format(condition=f"|j - i| ≤ {int(rest)}")
    if kind == "far":
        return AT.format(condition=f"|j - i| ≥ {int(rest)}")
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
