"""Claims that the values are the right ones in another order, recomputed from S and R: transposed,
reversed or moved along an axis (one place, or as many as an integer input says), their slices in
another order, reshaped, or any other order (see :mod:`gradekit.grading.verify.values`)."""

from __future__ import annotations

import numpy as np

from gradekit.grading.verify.basics import Case, axis
from gradekit.grading.verify.values import Outcome, one


def order(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    kind = arg.split(":", 1)[0]
    if kind == "T":
        return R.ndim >= 2 and case.near(S, np.swapaxes(R, -1, -2)) and not case.near(S, R)
    if kind == "T_all":
        return R.ndim >= 2 and case.near(S, np.transpose(R)) and not case.near(S, R)
    if kind == "reshape":  # "... but in the shape (6, 4)": the shape the sentence shows
        shown = [list(shape) for shape in case.said.get("shape") or []]
        if shown and list(S.shape) not in shown:
            return False
        return S.size == R.size and S.shape != R.shape and case.near(S, R.reshape(S.shape))
    if kind == "permuted":
        if S.size != R.size or S.size < 3:
            return None
        return case.near(np.sort(S.ravel()), np.sort(R.ravel())) and not (S.shape == R.shape and case.near(S, R))
    if S.shape != R.shape:
        return False
    a = axis(arg.split(":")[1], R.ndim, case)
    if a is None:
        return None
    if kind == "flip":
        return case.near(S, np.flip(R, a)) and not case.near(S, R)
    if kind == "roll":  # by 1, or by an integer input's value ("+=radius"), on 3 entries at least
        by, n = arg.split(":")[2], R.shape[a]
        k = 1 if by[1:] == "1" else case.inputs().get(by[2:]) if by[1:2] == "=" else None
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1 or n - k < (1 if k == 1 else 3):
            return None
        head, tail = np.take(R, range(n - k), axis=a), np.take(R, range(k, n), axis=a)
        if case.near(head, tail):
            return None
        s_head, s_tail = np.take(S, range(n - k), axis=a), np.take(S, range(k, n), axis=a)
        if by[0] == "+":  # your entry i + k is the right entry i
            return case.near(s_tail, head) and not case.near(s_tail, tail)
        return case.near(s_head, tail) and not case.near(s_head, head)
    if kind == "slices":
        return _reordered(S, R, a, case)
    return None


def _reordered(S: np.ndarray, R: np.ndarray, a: int, case: Case) -> Outcome:
    """S's slices along ``a`` are R's, each once, not all in place (None: R's slices are not all different)."""
    s = np.moveaxis(S, a, 0).reshape(S.shape[a], -1)
    r = np.moveaxis(R, a, 0).reshape(R.shape[a], -1)
    n = len(r)
    if any(case.near(r[i], r[j]) for i in range(n) for j in range(i + 1, n)):
        return None
    match = [[j for j in range(n) if case.near(s[i], r[j])] for i in range(n)]
    if any(len(m) != 1 for m in match):
        return False
    chosen = [m[0] for m in match]
    return sorted(chosen) == list(range(n)) and chosen != list(range(n))
