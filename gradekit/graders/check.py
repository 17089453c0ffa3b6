"""Comparisons for hidden graders, with feedback that names the mistake.

A grader compares what the student's code returned with the reference value::

    check.array(got, expected, what="softmax(x, axis=0)",
                mistakes={"normalised along the wrong axis": softmax(x, axis=1)})

On a mismatch it raises :class:`Mismatch` (an ``AssertionError``) whose message
says what was checked and how the result differed -- shape, dtype kind, NaNs,
row sums, or which known wrong route the value matches -- but never prints the
expected array itself: the feedback goes to students, the expected values stay
hidden.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Union

import numpy as np

from ..errors import Mismatch

__all__ = ["Mismatch", "array", "scalar", "close", "choice", "to_array"]

# the known wrong routes: a mapping, or a function returning one -- called only when the
# value is wrong, for routes that cost something to compute (most students are right)
Mistakes = Union[Mapping[str, Any], Callable[[], Mapping[str, Any]], None]

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-8


def to_array(value: Any, what: str) -> np.ndarray:
    """Turn a returned value (array, nested lists, number) into a float array.

    Lists and tuples are accepted: a correct answer written with lists keeps
    its marks. Anything non-numeric is a :class:`Mismatch`.
    """
    if isinstance(value, np.ndarray):
        arr = value
    else:
        try:
            arr = np.asarray(value)
        except Exception:  # ragged lists and the like
            raise Mismatch(f"{what}: returned a {type(value).__name__} that is not a rectangular array of numbers")
    if arr.dtype.kind not in "biuf":
        raise Mismatch(f"{what}: returned {_describe(value)}, expected an array of numbers")
    return arr.astype(np.float64, copy=False)


def array(got: Any, expected: Any, *, what: str, rtol: float = DEFAULT_RTOL,
          atol: float = DEFAULT_ATOL, mistakes: Mistakes = None) -> None:
    """Check that ``got`` equals ``expected`` elementwise within tolerance.

    ``mistakes`` maps a one-line description of a classic wrong route to the
    value that route would produce; if ``got`` matches one of them, the
    feedback names it. Pass a function returning that mapping (``mistakes=lambda:
    {...}``) when the wrong values cost something to compute: it is called only
    for a wrong answer.
    """
    if got is None:
        raise Mismatch(f"{what}: got None -- no answer given, or a function without a `return`")
    exp = np.asarray(expected, dtype=np.float64)
    arr = to_array(got, what)
    if arr.shape != exp.shape:
        hint = ""
        if arr.ndim == 2 and arr.shape == exp.shape[::-1]:
            hint = " (the transpose of the expected shape: check the order of your matrix product)"
        named = _matches_mistake(arr, mistakes, rtol, atol)
        if named:
            hint = f" -- this looks like: {named}"
        raise Mismatch(f"{what}: shape {arr.shape}, expected shape {exp.shape}{hint}", named)
    if not np.all(np.isfinite(arr)) and np.all(np.isfinite(exp)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        named = _matches_mistake(arr, mistakes, rtol, atol)
        extra = f" -- this looks like: {named}" if named else " (overflow? subtract the maximum before exp)"
        raise Mismatch(f"{what}: {bad} of {arr.size} values are nan or inf{extra}", named)
    if np.allclose(arr, exp, rtol=rtol, atol=atol, equal_nan=True):
        return
    named = _matches_mistake(arr, mistakes, rtol, atol)
    if named:
        raise Mismatch(f"{what}: wrong values -- this matches a known mistake: {named}", named)
    wrong = int(np.count_nonzero(~np.isclose(arr, exp, rtol=rtol, atol=atol, equal_nan=True)))
    raise Mismatch(f"{what}: {wrong} of {arr.size} values differ from the reference "
                   f"(tolerance rtol={rtol:g}, atol={atol:g})")


def scalar(got: Any, expected: float, *, what: str, rtol: float = DEFAULT_RTOL,
           atol: float = DEFAULT_ATOL, mistakes: Mistakes = None) -> None:
    """Check one number; ``mistakes`` as in :func:`array`."""
    if got is None:
        raise Mismatch(f"{what}: no answer given")
    if isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
        arr = to_array(got, what)
        if arr.size != 1:
            raise Mismatch(f"{what}: expected a single number, got shape {arr.shape}")
        got = arr.reshape(-1)[0]
    value = float(got)
    if math.isclose(value, float(expected), rel_tol=rtol, abs_tol=atol):
        return
    named = _matches_mistake(np.asarray(value), mistakes, rtol, atol)
    if named:
        raise Mismatch(f"{what}: wrong value -- this matches a known mistake: {named}", named)
    raise Mismatch(f"{what}: wrong value (tolerance rtol={rtol:g}, atol={atol:g})")


def close(got: Any, expected: Any, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> bool:
    """True when ``got`` is numerically ``expected`` (same shape); never raises."""
    try:
        arr = np.asarray(got, dtype=np.float64)
        exp = np.asarray(expected, dtype=np.float64)
    except Exception:
        return False
    return arr.shape == exp.shape and bool(np.allclose(arr, exp, rtol=rtol, atol=atol, equal_nan=True))


def choice(got: Any, expected: Any, *, what: str, mistakes: Mistakes = None) -> None:
    """Check a non-numeric answer (a yes/no, a chosen option's text)."""
    if got is None:
        raise Mismatch(f"{what}: no answer given")
    if _norm(got) == _norm(expected):
        return
    for text, value in _routes(mistakes).items():
        if _norm(got) == _norm(value):
            raise Mismatch(f"{what}: wrong answer -- {text}", text)
    raise Mismatch(f"{what}: wrong answer")


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.strip().lower().split())
    return value


def _routes(mistakes: Mistakes) -> Mapping[str, Any]:
    return (mistakes() if callable(mistakes) else mistakes) or {}


def _matches_mistake(arr: np.ndarray, mistakes: Mistakes, rtol: float, atol: float) -> str | None:
    for text, value in _routes(mistakes).items():
        if close(arr, value, rtol=max(rtol, 1e-6), atol=max(atol, 1e-8)):
            return text
    return None


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype}"
    return f"a {type(value).__name__}"
