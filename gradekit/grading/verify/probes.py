"""Claims of the engine's own questions, recomputed: a setting of the right function changed ("what the
right function gives for axis = 0"), and what the student's function answered on a probe -- right
there ("right when every column of X has mean 0"), or changing where the right one does not.

Each probe is made again here from its name (never taken from the search); the student's answer on
it is the one the search's request brought back, kept in the check's witness and found by its
arguments; the reference is called again here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradekit.grading.verify.basics import Case
from gradekit.grading.verify.values import Outcome


def keyword(arg: str, case: Case) -> Outcome:
    """The right function with one argument (an axis, a number) given another value."""
    key, _sep, text = arg.partition("=")
    call = case.call
    if call is None or call.reference is None:
        return None
    try:
        value: Any = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            return None
    if key in call.keywords:
        args = list(call.inputs.values())
        try:
            with np.errstate(all="ignore"):
                out = case._parts(call.reference(*args, **{**call.keywords, key: value}))
        except Exception:  # noqa: BLE001
            return False
        return case.gives(out)
    if key not in call.inputs:
        return None
    return case.gives(case.reference({key: value}, "keyword|" + arg))


def probed(arg: str, case: Case) -> Outcome:
    kind, _sep, probe = arg.partition(":")
    changes = probe_inputs(probe, case)
    if not changes:
        return None
    if kind == "right":
        further = _further(probe, case)
        return None if further is None else _right_on_all([changes] + further, probe, case)
    theirs = _answer(case, changes)
    if theirs is None:
        return None
    right = case.reference(changes, "probe|" + probe)
    if right is None:
        return None
    if kind == "same":  # the right values do not change; the student's do
        if not all(case.near(r, R) for r, R in zip(right, case.R, strict=True)):
            return False
        return all(not case.near(t, S) for t, S in zip(theirs, case.S, strict=True))
    if kind == "follow":  # the right values follow the change; the student's do not
        moved_R = [_moved(probe, R) for R in case.R]
        moved_S = [_moved(probe, S) for S in case.S]
        if any(m is None for m in moved_R + moved_S):
            return None
        if not all(case.near(r, m) for r, m in zip(right, moved_R, strict=True)):
            return False
        return all(not case.near(t, m) for t, m in zip(theirs, moved_S, strict=True))
    return None


def _right_on_all(inputs: list[dict[str, Any]], probe: str, case: Case) -> Outcome:
    """Whether the student's answers are the reference's on every input a probe's condition is asked
    on (None: one was not asked, or the reference's there cannot tell a right answer from a wrong one)."""
    for n, changes in enumerate(inputs):
        theirs = _answer(case, changes)
        right = case.reference(changes, f"probe|{probe}|{n}")
        if theirs is None or right is None:
            return None
        if any(not np.all(np.isfinite(r)) or not np.any(np.abs(r) > case.atol) for r in right):
            return None  # nothing there tells a right answer from a wrong one
        if not all(case.near(t, r) for t, r in zip(theirs, right, strict=True)):
            return False
    return True


def _further(probe: str, case: Case) -> list[dict[str, Any]] | None:
    """A condition on the mean asked again at the input's own size: the centred input's columns plus
    their means with alternating signs, +, -, +, ... (a 0 last for an odd count): mean 0 still, as far
    from 0 as the input. Without it, a value right on the centred input only because centring made
    its numbers small (an exp that no longer overflows) would pass for one right whenever the mean is
    0. Nothing for another probe ([]: a standardised input is small by its condition); None when
    the input cannot be made so."""
    kind, _sep, rest = probe.partition(":")
    if kind != "centred":
        return []
    arrays = _tables(case)
    keys = [k for k, a in arrays.items() if a.shape[0] >= 2] if rest == "*" else [rest]
    out: dict[str, Any] = {}
    with np.errstate(all="ignore"):
        for k in keys:
            if k not in arrays:
                return None
            a = arrays[k]
            n = a.shape[0]
            alternating = np.array(
                [0.0 if (i == n - 1 and n % 2) else (1.0 if i % 2 == 0 else -1.0) for i in range(n)]
            ).reshape((n,) + (1,) * (a.ndim - 1))
            mean = a.mean(axis=0, keepdims=True)
            out[k] = a - mean + alternating * mean
    return [out]


def _tables(case: Case) -> dict[str, np.ndarray]:
    """The call's finite float inputs of one or two axes (their columns and rows are what the words say)."""
    return {k: a for k, a in case.arrays().items() if a.size and np.all(np.isfinite(a)) and a.ndim <= 2}


def probe_inputs(probe: str, case: Case) -> dict[str, Any]:
    """The inputs a probe's name says, made from the call's (nothing when it names what is not there)."""
    kind, _sep, rest = probe.partition(":")
    arrays = {k: a for k, a in case.arrays().items() if a.size and np.all(np.isfinite(a))}
    # "every column of X", "the inputs keep only their first row", "the rows of X": words of vectors
    # and tables; an input of more axes holds tables along its first axis, and none of these is said of it
    with np.errstate(all="ignore"):
        if kind in ("centred", "standard"):
            if rest == "*" and any(a.ndim > 2 for a in arrays.values()):
                return {}  # "every input": none may be left out
            keys = [k for k, a in arrays.items() if a.shape[0] >= 2] if rest == "*" else [rest]
            out = {}
            for k in keys:
                if k not in arrays or arrays[k].ndim > 2:
                    return {}
                centred = arrays[k] - arrays[k].mean(axis=0, keepdims=True)
                if kind == "standard":
                    spread = np.sqrt((centred * centred).mean(axis=0, keepdims=True))
                    if np.any(spread == 0):
                        return {}
                    centred = centred / spread
                out[k] = centred
            return out
        if kind == "rows":
            if not arrays:
                return {}
            n = next(iter(arrays.values())).shape[0]
            count = int(rest)
            cut = {key: a for key, a in arrays.items() if a.shape[0] == n}
            if n <= count or any(a.ndim > 2 for a in cut.values()):
                return {}
            return {key: a[:count] for key, a in cut.items()}
        if kind == "set":
            key, _sep, value = rest.partition("=")
            return {key: float(value)} if key in case.inputs() else {}
        if kind == "order":
            keys = rest.split("+")
            if not all(k in arrays and arrays[k].ndim <= 2 for k in keys):
                return {}
            return {k: arrays[k][::-1] for k in keys}
        a = arrays.get(rest)
        if a is None:
            return {}
        if kind == "zeros":
            return {rest: np.zeros_like(a)}
        if kind == "ones":
            return {rest: np.ones_like(a)}
        if kind == "identity":
            return {rest: np.eye(a.shape[0])} if a.ndim == 2 and a.shape[0] == a.shape[1] else {}
        if kind == "double":
            return {rest: a * 2.0}
        if kind == "shift":
            return {rest: a + 1.0}
        if kind == "shiftcols":
            return {rest: a + np.arange(a.shape[1])[None, :]} if a.ndim == 2 else {}
    return {}


def _answer(case: Case, changes: dict[str, Any]) -> list[np.ndarray] | None:
    """What the student's function answered on these inputs, as the search's request brought it back."""
    call = case.call
    if call is None:
        return None
    want = [changes.get(name, value) for name, value in call.inputs.items()]
    for asked in case.raw.asked:
        if asked.family != "probed" or asked.parts is None or len(asked.args) != len(want):
            continue
        if all(_same(a, b) for a, b in zip(asked.args, want, strict=True)):
            return [asked.parts[i] for i in case.indices]
    return None


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        x, y = np.asarray(a), np.asarray(b)
        if x.dtype.kind not in "biuf" or y.dtype.kind not in "biuf":
            return False
        return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-12, atol=1e-14))
    except Exception:  # noqa: BLE001 - functions, objects: the same only if they are one
        return False


def _moved(probe: str, value: np.ndarray) -> np.ndarray | None:
    kind = probe.split(":", 1)[0]
    if kind == "double":
        return value * 2.0
    if kind == "order" and value.ndim >= 1 and value.shape[0] >= 3:
        return np.flip(value, 0)
    return None
