"""Claims about where the values differ, recomputed from S and R: the entries a predicate names, built
here from its words (a diagonal, a band, rows from k on, where R < 0 ...), hold every entry that
differs; "and are 0 there" (or "times c") at every entry the predicate names.

A place is said only where the inputs could refute it: a predicate that names every entry of the
value is not evaluated there (None); a diagonal, a band or a triangle only of a square table whose
rows and columns count the same things (queries and keys, not queries and features) -- anywhere
else it is false.
"""

from __future__ import annotations

import numpy as np

from gradekit.grading.verify.basics import Case, two
from gradekit.grading.verify.values import Outcome, one

DIAGONAL_KINDS = ("diag", "above", "below", "band", "near", "far")
SLICE_KINDS = ("last", "first", "index", "from", "upto", "lastk")


def entries(predicate: str, S: np.ndarray, R: np.ndarray) -> np.ndarray | None:
    """The entries a predicate names (a boolean array of R's shape); None when it is not one."""
    kind, _sep, rest = predicate.partition(":")
    if kind == "neg":
        return R < 0
    if kind == "pos":
        return R > 0
    if kind == "zero":
        return R == 0
    if kind in DIAGONAL_KINDS:
        if R.ndim < 2:
            return None
        rows, cols = R.shape[-2:]
        i, j = np.indices((rows, cols))
        k = j - i
        numbers = [int(v) for v in rest.split(":")]
        if kind == "band":
            table = (k >= numbers[0]) & (k <= numbers[1])
        else:
            m = numbers[0]
            table = {
                "diag": k == m,
                "above": k >= m,
                "below": k <= m,
                "near": np.abs(k) <= m,
                "far": np.abs(k) >= m,
            }[kind]
        return np.broadcast_to(table, R.shape)
    if kind.startswith("a") and kind[1:].isdigit():
        a = int(kind[1:])
        if a >= R.ndim:
            return None
        n = R.shape[a]
        which, _sep, count = rest.partition(":")
        if which not in SLICE_KINDS:
            return None
        m = int(count) if count else 0
        index = {
            "last": [n - 1],
            "first": [0],
            "index": [m],
            "upto": list(range(min(m, n))),
            "from": list(range(m, n)),
            "lastk": list(range(max(n - m, 0), n)),
        }[which]
        if not index or max(index) >= n:
            return None
        mask = np.zeros(n, dtype=bool)
        mask[index] = True
        shape = [1] * R.ndim
        shape[a] = n
        return np.broadcast_to(mask.reshape(shape), R.shape)
    return None


def _predicate(arg: str) -> tuple[str, str]:
    """(the predicate, what the values are there: "", "zero" or "times:c")."""
    kind = arg.split(":", 1)[0]
    if kind in ("neg", "pos", "zero"):
        head = kind
    elif kind == "band":
        head = ":".join(arg.split(":")[:3])
    elif kind in DIAGONAL_KINDS:
        head = ":".join(arg.split(":")[:2])
    else:
        parts = arg.split(":")
        head = ":".join(parts[:2] if parts[1] in ("last", "first") else parts[:3])
    return head, arg[len(head) + 1 :]


def where(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    if S.shape != R.shape:
        return False
    if arg.startswith("zeroed:"):
        return _zeroed(arg[7:], S, R, case)
    head, there = _predicate(arg)
    if head.split(":", 1)[0] in DIAGONAL_KINDS and not alike(R.shape, case):
        return False  # a band of queries × features: its sizes, not the values, would make it
    P = entries(head, S, R)
    if P is None:
        return None
    if P.all() or not P.any():
        return None  # it names every entry (or none): the values could not refute it
    with np.errstate(all="ignore"):
        same = np.isclose(S, R, rtol=case.rtol, atol=case.atol, equal_nan=True)
    if same.all() or np.any(~same & ~P):
        return False
    if there == "zero":
        return bool(np.all(S[P] == 0))
    if there.startswith("times:"):
        r = R[P]
        if np.any(np.abs(r) <= case.atol):
            return False
        c = float(np.sum(S[P] * r) / np.sum(r * r))
        return case.near(S[P], c * r) and two(c) == two(float(there[6:]))
    return there == ""


def _zeroed(head: str, S: np.ndarray, R: np.ndarray, case: Case) -> Outcome:
    """The student's values are 0 at every entry the predicate names, and the right ones are not."""
    if head.split(":", 1)[0] in DIAGONAL_KINDS and not alike(R.shape, case):
        return False
    P = entries(head, S, R)
    if P is None or P.all() or not P.any():
        return None
    return bool(np.all(np.abs(S[P]) <= case.atol) and np.all(R[P] != 0))  # "the right ones are not": not 0 at all


def alike(shape: tuple[int, ...], case: Case) -> bool:
    """Whether a table's rows and columns count the same things: it is square, or its rows and its
    columns are each the length of the row axis of some input table and the width of none (queries and
    keys, not queries and features)."""
    if len(shape) < 2 or min(shape[-2:]) < 2:
        return False
    rows, cols = shape[-2:]
    if rows == cols:
        return True
    inputs = list(case.arrays().values())
    lengths = {a.shape[-2] for a in inputs if a.ndim >= 2}
    widths = {a.shape[-1] for a in inputs if a.ndim >= 1}
    return rows in lengths and cols in lengths and rows not in widths and cols not in widths
