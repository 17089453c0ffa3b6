"""The calls a test made of the student's functions, for a check whose grader passed no ``call=``.

A grader compares ``student.correlation(x, y)`` with ``reference.correlation(x, y)`` in a
``check.scalar`` and says nothing of the call; the relation search and the engine's own probes need
it (the student's function, the reference's, the inputs by name). The ``student`` fixture notes
each call of a function of the student's made in the current test (its name, arguments and what
came back, and the reference's function of the same name); when a comparison fails without a
call, :func:`call_for` finds the noted call whose result is the value compared, and takes it for the
check's call only when the reference's function, called here on the same arguments, gives the
expected value -- then it is certain which call the grader checked. A leaf.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

KEPT = 8  # calls noted per test (the newest)


@dataclass
class Noted:
    function: Any  # the student's function (a StudentFunction: it calls into the sandbox)
    reference: Callable[..., Any] | None
    signature_of: Any  # what the parameters' names are read from (the reference's own function)
    args: tuple
    kwargs: dict
    result: Any


_NOTED: contextvars.ContextVar[list[Noted] | None] = contextvars.ContextVar("gradekit_noted", default=None)
_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("gradekit_quiet", default=False)


def begin() -> None:
    """A test begins: forget the calls of the last one."""
    _NOTED.set([])


def note(function: Any, reference: Any, name: str, args: tuple, kwargs: dict, result: Any) -> None:
    """A call of the student's function ``name`` came back with ``result`` (nothing noted outside a
    test, inside :func:`quiet`, or when the reference has no function of that name)."""
    noted = _NOTED.get()
    if noted is None or _QUIET.get() or not (_plain(args) and _plain(kwargs)):
        return  # the student's objects among the arguments: the reference must never be handed them
    target = getattr(reference, name, None) if reference is not None else None
    if not callable(target) or isinstance(target, type):
        return
    own = getattr(getattr(reference, "_module", reference), name, target)
    noted.append(Noted(function, target, own, args, kwargs, result))
    del noted[:-KEPT]


def _plain(value: Any) -> bool:
    """Whether a value is data the reference may be called on here: numbers, text, arrays, containers of
    them, or a function of the grader's (never an object or a function of the student's)."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.ndarray, np.generic)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    # a function of the grader's is a plain Python function; the student's (a StudentFunction) and their
    # objects are not, and are never asked anything here (any attribute of theirs is a call into the sandbox)
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial))


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Calls made inside are the engine's own (a search, a probe): not the test's, not noted."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def call_for(got: Sequence[np.ndarray], expected: Sequence[np.ndarray], tol: tuple[float, float], make: Any) -> Any:
    """The call that produced ``got`` (all of a call's result, or one part of it), certain by the
    reference giving ``expected`` on its arguments, made with ``make`` (the
    :class:`~gradekit.graders.check.Call` class, which imports this module); None when no noted call
    is that."""
    for noted in reversed(_NOTED.get() or []):
        parts = _parts(noted.result)
        if noted.reference is None:
            continue
        if parts is None:
            continue
        index = _where(got, parts)
        if index is None:
            continue
        try:
            with np.errstate(all="ignore"), quiet():
                right = _parts(noted.reference(*noted.args, **noted.kwargs))
        except Exception:  # noqa: BLE001 - the reference does not take these: not this call
            continue
        if right is None or not _same([right[i] for i in index], expected, tol):
            continue
        names = _names(noted.signature_of, len(noted.args))
        if names is None:
            continue
        part = index[0] if len(index) == 1 and len(parts) > 1 else None
        return make(
            noted.function, noted.reference, dict(zip(names, noted.args, strict=True)), keywords=noted.kwargs, part=part
        )
    return None


def _parts(value: Any) -> list[np.ndarray] | None:
    values = list(value) if isinstance(value, (tuple, list)) and not _numbers(value) else [value]
    out = []
    for v in values:
        try:
            arr = np.asarray(v)
        except Exception:  # noqa: BLE001 - ragged, objects
            return None
        if arr.dtype.kind not in "biuf":
            return None
        out.append(arr.astype(np.float64))
    return out


def _numbers(value: Any) -> bool:
    """A list of plain numbers is one value (an array written as a list), not parts."""
    return all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in value)


def _where(got: Sequence[np.ndarray], parts: list[np.ndarray]) -> list[int] | None:
    """The indices of the parts that are ``got`` (all of them in order, or one)."""
    if len(got) == len(parts) and all(_equal(g, p) for g, p in zip(got, parts, strict=True)):
        return list(range(len(parts)))
    if len(got) == 1:
        hits = [i for i, p in enumerate(parts) if _equal(got[0], p)]
        return hits[:1] if len(hits) == 1 else None
    return None


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))


def _same(a: Sequence[np.ndarray], b: Sequence[np.ndarray], tol: tuple[float, float]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if x.shape != y.shape or not np.allclose(x, y, rtol=tol[0], atol=tol[1], equal_nan=True):
            return False
    return True


def _names(function: Any, count: int) -> list[str] | None:
    """The names of a function's first ``count`` positional parameters (None: it takes fewer, or *args)."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return positional[:count] if len(positional) >= count else None
