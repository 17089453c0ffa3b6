"""Property probes: describe a wrong value that matches no known mistake, without naming a cause.

A probe looks at a property of the student's wrong value, or calls their
function a second time on a related input (a metamorphic check), and returns
one sentence when it sees something, else None. Pass them to a check; they
run only for a wrong value that matched no known mistake::

    check.array(got, expected, what=..., mistakes=lambda: {...}, probes=lambda: [
        probes.unchanged_when(lambda: student.mix(other_weights, values), got,
                              subject="Your output", changed="the weights"),
        probes.slices_not_summing_to_one(got_weights, subject="the rows of your weights"),
    ])

The sentences describe what was seen ("Your output stayed the same when the
grader changed the weights."); they never show expected values and never say why. A probe
whose call into the student's code fails says nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gradekit.i18n.text import _

__all__ = [
    "unchanged_when",
    "slices_not_summing_to_one",
    "equals",
    "identical_rows",
    "not_equivariant",
    "negative_entries",
]

RTOL, ATOL = 1e-6, 1e-8


def _safe(probe: Callable[..., str | None]) -> Callable[..., str | None]:
    """A probe that cannot look (odd shapes, a value that is not numbers) says nothing."""

    @functools.wraps(probe)
    def wrapper(*args, **kwargs):
        try:
            return probe(*args, **kwargs)
        except Exception:  # noqa: BLE001
            return None

    return wrapper


@_safe
def unchanged_when(call_again: Callable[[], Any], got: Any, *, subject: str, changed: str):
    """``call_again()`` runs the student's function with ``changed`` altered (so that the right
    answer changes); the same result means the function does not depend on it::

        probes.unchanged_when(lambda: student.mix(2.0 * w, v), got, subject=_("Your output"), changed=_("the weights"))
    """
    again = _quietly(call_again)
    if again is None or not _same(again, got):
        return None
    return _("{subject} stayed the same when the grader changed {changed}.").format(subject=subject, changed=changed)


@_safe
def slices_not_summing_to_one(value: Any, *, subject: str, axis: int = -1, atol: float = 1e-6) -> str | None:
    """Slices along ``axis`` that should each sum to 1 (a distribution) and do not.

    Example::

        probes.slices_not_summing_to_one(weights, subject=_("the rows of your weights"))
    """
    arr = _array(value)
    if arr is None or arr.ndim == 0 or not np.all(np.isfinite(arr)):
        return None
    if np.allclose(arr.sum(axis=axis), 1.0, atol=atol):
        return None
    return _("Not all {subject} sum to 1.").format(subject=subject)


@_safe
def equals(value: Any, other: Any, *, subject: str, other_name: str) -> str | None:
    """The value is ``other`` unchanged (e.g. the output equals the input rows).

    Example::

        probes.equals(out, X, subject=_("Your output"), other_name=_("the input rows X"))
    """
    if not _same(value, other):
        return None
    return _("{subject} equals {other_name}, unchanged.").format(subject=subject, other_name=other_name)


@_safe
def identical_rows(value: Any, *, subject: str) -> str | None:
    """Every row of a table with several rows is the same row.

    Example::

        probes.identical_rows(weights, subject=_("your weights"))
    """
    arr = _array(value)
    if arr is None or arr.ndim != 2 or arr.shape[0] < 2:
        return None
    if not np.allclose(arr, arr[:1], rtol=RTOL, atol=ATOL):
        return None
    return _("Every row of {subject} is the same.").format(subject=subject)


@_safe
def not_equivariant(
    call_permuted: Callable[[], Any], got: Any, order: Sequence[int], *, subject: str, items: str, table: bool = False
) -> str | None:
    """``call_permuted()`` runs the function on the inputs reordered by ``order``; an equivariant
    function returns ``got`` with its rows reordered the same way (and its columns too, for a
    ``table`` of item against item)::

        order = rng.permutation(n)
        probes.not_equivariant(lambda: student.attention(X[order]), got, order,
                               subject=_("your output"), items=_("the tokens"))
    """
    again, arr = _array(_quietly(call_permuted)), _array(got)
    if again is None or arr is None or arr.ndim == 0 or arr.shape[0] != len(order):
        return None
    rows = np.asarray(order)
    expected = arr[rows][:, rows] if table else arr[rows]
    if _same(again, expected):
        return None
    return _("Reordering {items} does not reorder {subject} the same way: it is not permutation-equivariant.").format(
        items=items, subject=subject
    )


@_safe
def negative_entries(value: Any, *, subject: str) -> str | None:
    """Some entries are negative where none should be (weights, probabilities, variances).

    Example::

        probes.negative_entries(weights, subject=_("your weights"))
    """
    arr = _array(value)
    if arr is None or not np.any(arr < -ATOL):
        return None
    return _("Some of {subject} are negative.").format(subject=subject)


def _quietly(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception:  # noqa: BLE001 - the student's code failed: the probe has nothing to say
        return None


def _array(value: Any) -> np.ndarray | None:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except Exception:  # noqa: BLE001 - not numbers
        return None
    return arr


def _same(a: Any, b: Any) -> bool:
    x, y = _array(a), _array(b)
    return (
        x is not None
        and y is not None
        and x.shape == y.shape
        and bool(np.allclose(x, y, rtol=RTOL, atol=ATOL, equal_nan=True))
    )
