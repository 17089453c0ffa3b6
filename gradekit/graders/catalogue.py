"""The evidence a wrong value gives about the known mistakes (a check's ``mistakes=``).

A check compares the student's value with the value each known mistake gives on its input:
the mistakes it matches are its *candidates* (several when they coincide on this input), the
others are *ruled out* (another value, the right answer, or :data:`FAILS`: the mistake would raise
here); a mistake whose value is ``None`` is unknown here. :func:`gradekit.graders.check.evidence`
is the public face; :mod:`gradekit.graders.check`'s comparisons use it, and keep the values for the
verifier (:mod:`gradekit.graders.witness`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gradekit.graders import observe
from gradekit.graders.relations.values import close as same

# the known mistakes: a mapping, or a function returning one -- called only when the
# value is wrong, for mistakes that cost something to compute (most students are right)
Mistakes = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


class _Fails:
    """The value of a mistake that raises on this input (see the module's docstring)."""

    def __repr__(self) -> str:
        return "FAILS"


FAILS = _Fails()

DEFAULT_RTOL = 1e-6


DEFAULT_ATOL = 1e-8


def close(got: Any, expected: Any, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> bool:
    """True when ``got`` is numerically ``expected`` (same shape); never raises. For a law that
    compares two of the student's own values, without a Mismatch's message::

        assert check.close(student.softmax(x + 5.0), student.softmax(x)), _("softmax(x + c) should equal softmax(x)")
    """
    try:
        arr = np.asarray(got, dtype=np.float64)
        exp = np.asarray(expected, dtype=np.float64)
    except Exception:
        return False
    return same(arr, exp, (rtol, atol))  # np.allclose(equal_nan=True) of the same shape, in less time


def evidence(
    got: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    mistakes: Mistakes,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
) -> tuple[list[str], list[str]]:
    """What a wrong value says about the known mistakes: (candidates, ruled out). The checks above
    call it; a grader with a comparison of its own may too::

        candidates, ruled_out = check.evidence([got], [expected], {_("forgot the √d_k"): [Q @ K.T]})
        if candidates:
            raise check.Mismatch(_("your scores: wrong values"), candidates=candidates, ruled_out=ruled_out)

    A mistake is a candidate when the value matches it, or matches a mistake that
    gives the same values here (coinciding mistakes are candidates together: this
    input cannot tell them apart). A mistake that gives the right answer here,
    another value than the student's, or no value at all (:data:`FAILS`) is
    ruled out. Mistakes whose value is ``None`` are neither.
    """
    return _weighed(got, expected, _values(mistakes, len(got)), rtol, atol)


def _values(mistakes: Mistakes, count: int) -> dict[str, Any]:
    """The known mistakes' values here (a sequence of ``count`` parts, None or FAILS), worked out once."""
    out: dict[str, Any] = {}
    for name, value in _known(mistakes).items():
        if value is not None and value is not FAILS and len(value) != count:
            raise ValueError(f"the mistake {name!r} gives {len(value)} values, the check compares {count}")
        out[name] = value
    return out


def _kept(known: dict[str, Any]) -> dict[str, Any]:
    """The mistakes' values as a witness keeps them: float arrays, None (unknown here) or "fails"."""
    out: dict[str, Any] = {}
    for name, value in known.items():
        if value is None or value is FAILS:
            out[name] = None if value is None else "fails"
            continue
        try:
            out[name] = [np.asarray(v, dtype=np.float64) for v in value]
        except (TypeError, ValueError):  # not numbers: nothing the verifier can weigh
            out[name] = None
    return out


def _weighed(
    got: Sequence[np.ndarray], expected: Sequence[np.ndarray], known: dict[str, Any], rtol: float, atol: float
) -> tuple[list[str], list[str]]:
    rtol, atol = _tol(rtol, atol)
    values, fails = {}, []
    for name, value in known.items():
        if value is None:
            continue
        if value is FAILS:
            fails.append(name)
            continue
        values[name] = value
    wrong = {name: v for name, v in values.items() if not _all_close(v, expected, rtol, atol)}
    matched = [name for name, v in wrong.items() if _all_close(got, v, rtol, atol)]
    candidates = [
        name
        for name, v in wrong.items()
        if name in matched or any(_all_close(v, wrong[m], rtol, atol) for m in matched)
    ]
    return candidates, [name for name in values if name not in candidates] + fails


def _tol(rtol: float, atol: float) -> tuple[float, float]:
    return max(rtol, 1e-6), max(atol, 1e-8)  # as evidence() compares mistakes


def _audit(mistakes: Mistakes, expected: Any, what: Any, same) -> None:
    """Tell the observers each known mistake whose value here is the right answer: an input on
    which that mistake cannot be caught (see gradekit.graders.observe)."""
    try:
        known = _known(mistakes)
    except Exception:  # noqa: BLE001 - a mistake that cannot be worked out here says nothing
        return
    for name, value in known.items():
        if value is None or value is FAILS:
            continue
        try:
            if same(value, expected):
                observe.right_answer_matches(str(name), str(what))
        except Exception:  # noqa: BLE001 - a value of another shape is simply not the same
            continue


def _all_close(a: Sequence, b: Sequence, rtol: float, atol: float) -> bool:
    return len(a) == len(b) and all(close(x, y, rtol=rtol, atol=atol) for x, y in zip(a, b, strict=False))


def _known(mistakes: Mistakes) -> Mapping[str, Any]:
    return (mistakes() if callable(mistakes) else mistakes) or {}
