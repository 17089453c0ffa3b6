"""Claims about what the right function gives on other inputs, recomputed by calling the reference here
(in the grading process: the reference is the course's) on inputs changed as the sentence says -- the
change made again from its words, not taken from the search -- and comparing with the student's
values; and claims about what the student's function gave when the search called it again (its
answers are kept in the check's witness: the student's code is never run here).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradekit.grading.verify.basics import Case, evaluate, sizes, two
from gradekit.grading.verify.values import FUNCTIONS, Outcome, transform


def changed(arg: str, case: Case) -> Outcome:
    changes = change(arg, case)
    if changes is None:
        return None
    return case.gives(case.reference(changes, "changed|" + arg), bool(case.said.get("broadcast")))


def change(arg: str, case: Case) -> dict[str, Any] | None:
    """The inputs a change names (``scale:K:2`` is K doubled ...), made from the call's inputs; None
    when the call has not the inputs it names."""
    kind, _sep, rest = arg.partition(":")
    arrays, inputs = case.arrays(), case.inputs()
    with np.errstate(all="ignore"):
        if kind == "scale":
            key, _sep, factor = rest.rpartition(":")
            c = {"-1": -1.0, "2": 2.0, "1/2": 0.5}.get(factor)
            return {key: c * arrays[key]} if key in arrays and c is not None else None
        if kind in ("unit", "centred", "standard"):
            keys = rest.split("+")
            if any(k not in arrays for k in keys):
                return None
            out = {}
            for k in keys:
                A = arrays[k]
                if kind == "unit":
                    out[k] = A / np.sqrt(np.sum(A * A, axis=-1, keepdims=True))
                elif kind == "centred":
                    out[k] = A - A.mean(axis=-2, keepdims=True)
                else:
                    centred = A - A.mean(axis=-1, keepdims=True)
                    out[k] = centred / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True))
            return out
        if kind == "zero":
            return {rest: np.zeros_like(arrays[rest])} if rest in arrays else None
        if kind == "identity":
            square = arrays.get(rest)
            ok = square is not None and square.ndim == 2 and square.shape[0] == square.shape[1]
            return {rest: np.eye(square.shape[0])} if ok and square is not None else None
        if kind == "inplace":
            old, _sep, new = rest.partition("=")
            return {old: arrays[new]} if old in arrays and new in arrays else None
        if kind == "swap":
            a, _sep, b = rest.partition(",")
            return {a: inputs[b], b: inputs[a]} if a in inputs and b in inputs else None
        if kind == "int":
            for sign in ("=1", "-1", "+1"):
                if rest.endswith(sign):
                    key = rest[: -len(sign)]
                    n = inputs.get(key)
                    if not isinstance(n, (int, np.integer)):
                        return None
                    return {key: {"=1": 1, "-1": int(n) - 1, "+1": int(n) + 1}[sign]}
            return None
        if kind == "cut":
            end, _sep, where = rest.partition(":")
            out = {}
            cuts: dict[str, list[int]] = {}
            for item in where.split(","):
                name, _sep, number = item.rpartition(".")
                cuts.setdefault(name, []).append(int(number))
            for name, axes in cuts.items():
                table = arrays.get(name)
                if table is None:
                    return None
                index = [slice(None)] * table.ndim
                for position in axes:
                    index[position] = slice(None, -1) if end == "-1" else slice(1, None)
                out[name] = table[tuple(index)]
            return out
    return None


def pieces(arg: str, case: Case) -> Outcome:
    """The right function on consecutive pieces of b entries (b the integer input named) of the named
    inputs, along their axes of one length, combined as said: true when some such length gives it."""
    combine, size, names = arg.split(":", 2)
    inputs, arrays = case.inputs(), case.arrays()
    b = inputs.get(size)
    keys = names.split("+")
    if not isinstance(b, (int, np.integer)) or b < 1 or any(k not in arrays for k in keys):
        return None
    lengths = sorted({n for k in keys for n in arrays[k].shape})
    for n in lengths:
        count = -(-n // int(b))
        if not 2 <= count <= 8:
            continue
        outs = []
        for start in range(0, n, int(b)):
            changes = {}
            for k in keys:
                index = tuple(slice(start, start + int(b)) if m == n else slice(None) for m in arrays[k].shape)
                changes[k] = arrays[k][index]
            out = case.reference(changes)
            if out is None:
                break
            outs.append(out)
        if len(outs) < count:
            continue
        for value in _combined(combine, outs, case, n):
            if value is not None and case.gives(value):
                return True
    return False


def _combined(combine: str, outs: list[list[np.ndarray]], case: Case, n: int):
    parts = range(len(case.S))
    if combine in ("mean", "sum"):
        if all(o[p].shape == outs[0][p].shape for o in outs for p in parts):
            yield [(np.mean if combine == "mean" else np.sum)([o[p] for o in outs], axis=0) for p in parts]
    elif combine == "joined":
        joined = []
        for p in parts:
            axes = [a for a in range(case.S[p].ndim) if case.S[p].shape[a] == n and outs[0][p].ndim == case.S[p].ndim]
            if not axes:
                return
            try:
                joined.append(np.concatenate([o[p] for o in outs], axis=axes[0]))
            except ValueError:
                return
        yield joined
    elif combine == "first":
        yield outs[0]
    elif combine == "last":
        yield outs[-1]


def again(arg: str, case: Case) -> Outcome:
    """The right function applied to its own result, in place of an input."""
    _kind, key, index = arg.split(":")
    arrays = case.arrays()
    i = int(index)
    if key not in arrays or i >= len(case.raw.expected):
        return None
    R = case.raw.expected[i]
    if R.shape != arrays[key].shape or case.near(R, arrays[key]):
        return None
    return case.gives(case.reference({key: R}, "again|" + arg))


def transformed(arg: str, case: Case) -> Outcome:
    """The right function on t(an input), or with t applied to what a function among the inputs returns."""
    name, _sep, key = arg.rpartition(":")
    t = transform(name)
    if t is None:
        return None
    inputs, arrays = case.inputs(), case.arrays()
    if key.endswith("(…)"):
        function = inputs.get(key[:-3])
        if not callable(function):
            return None

        def after(*args, **kwargs):
            with np.errstate(all="ignore"):
                return t(np.asarray(function(*args, **kwargs), dtype=np.float64))

        return case.gives(case.reference({key[:-3]: after}), bool(case.said.get("broadcast")))
    A = arrays.get(key)
    if A is None:
        return None
    with np.errstate(all="ignore"):
        T = t(A)
    if case.near(T, A):
        return None
    return case.gives(case.reference({key: T}, "transformed|" + arg), bool(case.said.get("broadcast")))


def fitted(arg: str, case: Case) -> Outcome:
    """The right function on c·x (or x + c) for one c: a simple number or size expression evaluated here,
    or -- said with two digits, or as a c of its own on each check -- the c the search found here,
    checked by calling the reference with it."""
    kind, key, rest = arg.split(":", 2)
    if rest.startswith("expr:"):
        c = evaluate(rest[5:].removeprefix("ratio:"), sizes(case))
    else:
        c = case.detail.get("c")
        if c is None or not math.isfinite(c):
            return None  # not found here: nothing to check
        if rest.startswith("c:") and two(c) != two(float(rest[2:])):
            return False
    if c is None:
        return None
    if sum(S.size for S in case.S) < 2 and not rest.startswith("expr:"):
        return None  # one value: some c fits it
    inputs, arrays = case.inputs(), case.arrays()
    changes: dict[str, Any] = {}
    for name in key.split("+"):
        if name.endswith("(…)"):
            function = inputs.get(name[:-3])
            if not callable(function):
                return None
            changes[name[:-3]] = _changed_output(function, kind, c)
        elif name in arrays:
            changes[name] = c * arrays[name] if kind == "scale" else arrays[name] + c
        else:
            return None
    return case.gives(case.reference(changes))


def _changed_output(function, kind: str, c: float):
    def changed(*args, **kwargs):
        out = np.asarray(function(*args, **kwargs), dtype=np.float64)
        return c * out if kind == "scale" else out + c

    return changed


def independent(arg: str, case: Case) -> Outcome:
    """The student's function, called again with the input ``arg`` changed, gave the same values; the
    reference, on that change, gives others."""
    call = case.call
    if call is None:
        return None
    names = list(call.inputs)
    if arg not in names:
        return None
    at = names.index(arg)
    seen = None
    for asked in case.raw.asked:
        if asked.family != "independent" or asked.parts is None or len(asked.args) != len(names):
            continue
        if all(_same(asked.args[i], call.inputs[n]) for i, n in enumerate(names) if i != at) and not _same(
            asked.args[at], call.inputs[arg]
        ):
            seen = asked
            break
    if seen is None or seen.parts is None:
        return None
    theirs = [seen.parts[i] for i in case.indices]
    if not all(np.all(np.isfinite(v)) for v in (*case.S, *theirs)):
        return None  # an overflowed value (inf, nan) stays so whatever the input: it says nothing of it
    right = case.reference({arg: seen.args[at]})
    if right is None:
        return None
    changes_right = any(not case.near(r, R) for r, R in zip(right, case.R, strict=True))
    return changes_right and all(case.near(t, S) for t, S in zip(theirs, case.S, strict=True))


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except Exception:  # noqa: BLE001 - functions, objects: the same only if they are one
        return False


def mixed(case: Case, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The weights the student's function mixes the rows of input ``key`` with (what it gave for that
    input the identity, as the search asked), and the right ones -- when the student's value is those
    weights times the input's rows, and the reference is linear in it too. None otherwise."""
    call = case.call
    arrays = case.arrays()
    if call is None or key not in arrays or len(case.indices) != 1:
        return None
    A = arrays[key]
    names = list(call.inputs)
    at = names.index(key)
    eye = np.eye(A.shape[0]) if A.ndim == 2 else None
    if eye is None:
        return None
    for asked in case.raw.asked:
        if asked.family != "mixing" or asked.parts is None or len(asked.args) != len(names):
            continue
        if not _same(asked.args[at], eye):
            continue
        i = case.indices[0]
        W = asked.parts[i]
        right = case.reference({key: eye})
        if right is None:
            return None
        RW = right[0]
        S = case.S[0]
        with np.errstate(all="ignore"):
            if W.shape[-1:] != (A.shape[0],) or not case.near(W @ A, S) or not case.near(RW @ A, case.R[0]):
                return None
        return W, RW
    return None


__all__ = ["FUNCTIONS", "changed", "pieces", "again", "transformed", "fitted", "independent", "mixed"]
