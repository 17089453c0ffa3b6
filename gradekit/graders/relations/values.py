"""The small numeric tools every family uses: comparing within a check's tolerance, reading values.

A check's tolerance is ``tol = (rtol, atol)``, as the check compared with (at
least 1e-6 and 1e-8, as known mistakes are compared).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.graders.check import Call

Tol = tuple[float, float]
_DOUBLE = np.dtype(np.float64)


def close(a: np.ndarray, b: np.ndarray, tol: Tol) -> bool:
    """np.allclose(a, b, equal_nan=True) of the same shape, in a fraction of its time (it is asked
    thousands of times a search)."""
    if a.shape != b.shape:
        return False
    if a.size and a.dtype == _DOUBLE and b.dtype == _DOUBLE:
        # the first entry in Python's floats (the same doubles, and no floating-point warnings to silence):
        # where it already differs, the arrays do (the usual answer: most relations tried do not hold)
        a0, b0 = float(a.flat[0]), float(b.flat[0])
        if not abs(a0 - b0) <= tol[1] + tol[0] * abs(b0) and a0 != b0 and (a0 == a0 or b0 == b0):
            return False
    with np.errstate(all="ignore"):
        ok = np.abs(a - b) <= tol[1] + tol[0] * np.abs(b)  # true for any a where b is infinite: checked below
        finite_b = np.isfinite(b)
        if ok.all() and finite_b.all():
            return True
        rest = ~ok | ~finite_b
        return bool(np.all((a[rest] == b[rest]) | (np.isnan(a[rest]) & np.isnan(b[rest]))))


def differ(a: np.ndarray, b: np.ndarray, tol: Tol) -> np.ndarray:
    """Where ``a`` is not ``b`` within tolerance (NaN equal to NaN, inf to the same inf)."""
    with np.errstate(all="ignore"):
        near = (np.abs(a - b) <= tol[1] + tol[0] * np.abs(b)) & np.isfinite(b)
        ok = near | (a == b) | (np.isnan(a) & np.isnan(b))
    return ~ok


def finite(*arrays: np.ndarray) -> bool:
    return all(bool(np.all(np.isfinite(a))) for a in arrays)


def floats(value: Any) -> np.ndarray | None:
    """``value`` as a float64 array, or None when it is not numbers (ragged, text, objects)."""
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - ragged, or not numbers
        return None
    if arr.dtype.kind not in "biuf":
        return None
    return arr.astype(np.float64, copy=False)


def attempt(function: Callable[..., Any] | None, args: list[Any], keywords: dict) -> Any:
    """``function(*args, **keywords)``, or None when there is no function or it raises."""
    if function is None:
        return None
    try:
        with np.errstate(all="ignore"):
            return function(*args, **keywords)
    except Exception:  # noqa: BLE001 - a change the function does not take says nothing
        return None


def parts(value: Any, call: Call, count: int) -> list[np.ndarray] | None:
    """The checked part(s) of what a call returned, as float arrays; None when they are not there."""
    if value is None:
        return None
    if call.part is not None:
        if not isinstance(value, (tuple, list)) or len(value) <= call.part:
            return None
        value = [value[call.part]]
    elif count > 1:
        if not isinstance(value, (tuple, list)) or len(value) != count:
            return None
    else:
        value = [value]
    out = []
    for v in value:
        arr = floats(v)
        if arr is None:
            return None
        out.append(arr)
    return out


def slices(ndim: int, axis: int) -> tuple[tuple, tuple]:
    """The index of all but the last entry along ``axis``, and of all but the first."""
    head = [slice(None)] * ndim
    tail = [slice(None)] * ndim
    head[axis], tail[axis] = slice(None, -1), slice(1, None)
    return tuple(head), tuple(tail)


def matches(got: list[np.ndarray], out: list[np.ndarray], tol: Tol) -> tuple[bool, bool]:
    """Whether ``out`` (what a function gave on changed inputs) is ``got``, part by part; and whether
    a part had to be repeated to ``got``'s shape to match (a table computed once, broadcast)."""
    broadcast = False
    for S, T in zip(got, out, strict=False):
        if S.shape == T.shape:
            if not close(S, T, tol):
                return False, False
        elif T.ndim == S.ndim and all(o in (1, s) for o, s in zip(T.shape, S.shape, strict=False)):
            broadcast = True
            if not close(S, np.broadcast_to(T, S.shape), tol):
                return False, False
        else:
            return False, False
    return True, broadcast
