"""What crosses for a grader's argument: plain data as it is, anything else as what stands for it.

An argument the grader passes to the student's code crosses the sandbox's boundary as plain
data (:mod:`gradekit.sandbox.protocol`: numeric arrays, numbers, strings, None, lists, tuples
and dicts of them), or as one of three things that stand for what cannot cross:

    the student's object        its handle (``$obj``): the object stays in the sandbox
    :class:`StudentName`        the student's own function, by its name (``$fn``): it runs there
    :class:`Callback`           a function of the grader's (``$cb``): it stays here, and the
                                student's code calls it back (:mod:`gradekit.sandbox.callbacks`)

:func:`unwrap` is the one walk through a grader's arguments that swaps what stands in: each
layer that holds objects of its own (the sandbox's :class:`~gradekit.sandbox.client.RemoteObject`,
the ``student`` fixture's objects and functions) gives it what crosses for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gradekit.sandbox import protocol as P

# values that hold nothing to unwrap (no object of the student's): most arguments are these
LEAVES = frozenset({np.ndarray, float, int, bool, str, type(None), np.float64, np.int64})


class StudentName:
    """The student's own function ``name``, as an argument: it crosses as its name and runs in
    the sandbox when the student's code calls it."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class Callback:
    """A function of the grader's, as an argument of the student's code: it stays in the grader's
    process; the student's code gets a stub that calls back (see :mod:`gradekit.sandbox.callbacks`)."""

    __slots__ = ("function", "name")

    def __init__(self, function: Callable[..., Any], name: str | None = None):
        self.function = function
        self.name = name or str(getattr(function, "__name__", "") or type(function).__name__)[:100]


def unwrap(value: Any, crossing: Callable[[Any], Any]) -> Any:
    """``value`` with each thing in it that is not plain data -- in lists, tuples and dicts, at any
    depth -- replaced by ``crossing(thing)``: what crosses for it. Plain data comes back as it is,
    and a list, tuple or dict of plain data only is not copied (the usual arguments)."""
    kind = type(value)
    if kind in LEAVES:
        return value
    if kind is list or kind is tuple:
        if all(type(v) in LEAVES for v in value):  # nothing to unwrap: the usual arguments
            return value
        return kind(unwrap(v, crossing) for v in value)
    if kind is dict:
        if all(type(v) in LEAVES for v in value.values()):
            return value
        return {k: unwrap(v, crossing) for k, v in value.items()}
    return crossing(value)


def special(callbacks: dict[str, Callable]) -> Callable[[Any], dict | None]:
    """How the grader's side encodes what is not plain data: the student's function by its name,
    an object of the student's by its handle (see :func:`unwrap`), a function of the grader's as
    a callback key entered in ``callbacks`` (one key per function a request passes)."""
    keys: dict[int, str] = {}

    def encoded(value: Any) -> dict | None:
        if isinstance(value, StudentName):
            return {"$fn": value.name}
        if isinstance(value, Callback):
            key = keys.get(id(value.function))
            if key is None:
                key = keys[id(value.function)] = f"#{len(keys)}"
                callbacks[key] = value.function
            return {"$cb": key, "name": value.name}
        return None

    return encoded


def cannot_cross(exc: P.ProtocolError) -> str:
    """The message of the BoundaryError of a grader's argument that cannot cross."""
    return (
        f"an argument the grader passes to the student's code: {exc} (what crosses: numeric arrays, numbers, "
        "strings, None, lists, tuples and dicts of them, the student's functions and objects, and the grader's "
        "functions)"
    )


def holds_handle(value: Any, depth: int = 0) -> bool:
    """Whether a decoded value holds an object of the student's (a handle), at any depth."""
    if isinstance(value, P.Handle):
        return True
    if depth < P.MAX_DEPTH and type(value) in (list, tuple):
        return any(holds_handle(v, depth + 1) for v in value)
    if depth < P.MAX_DEPTH and type(value) is dict:
        return any(holds_handle(v, depth + 1) for v in value.values())
    return False
