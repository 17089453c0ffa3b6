"""The engine's own questions: inputs derived from a failed check's call, one thing changed at a time,
on which the student's function and the reference are both called (the student's in the sandbox, all
of a check's probes in one request; the reference here).

A probe is a name and the changed arguments. Named so that the name says the change and the
verifier (:mod:`gradekit.grading.verify.probes`) can make it again from the words alone:

    centred:X          every column of X (a vector: X itself) moved to mean 0
    centred:*          every float input so moved at once
    standard:X         ... and scaled to standard deviation 1        standard:*   every input so
                       (a centred input also asked at the input's own size: see :func:`further`)
    rows:2, rows:1     every input with rows as many as the first input's cut to its first 2 (1) rows
    zeros:X, ones:X    X replaced by zeros, by ones                  identity:X   by the identity
    set:eps=0          a number given to the function set to 0 (or 1)
    double:X           X times 2                                     shift:X      X plus 1
    shiftcols:X        column j of X plus j (each column shifted by a constant of its own)
    order:X+y          the rows of X and y (every input of that many rows) in another order, one for all

Which inputs are probed is read from the call: its float inputs, its numbers; an author may name
an input's role for the engine (``check.Call(..., roles={"axis": "axis", "eps": "epsilon"})``):
an axis is never probed as a number, a scale or an epsilon is set to 0 and 1 first.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from gradekit.graders.relations.inputs import Inputs

# a permutation that moves every row, the same on every input (a reversal is one)
SEED = 20261204


def floats(inputs: Inputs) -> dict[str, np.ndarray]:
    """The float inputs a probe may change (finite ones)."""
    return {k: a for k, a in inputs.arrays.items() if a.size and np.all(np.isfinite(a))}


def tables(inputs: Inputs) -> dict[str, np.ndarray]:
    """The float inputs whose rows and columns the probes' words name: vectors and tables (an input of
    more axes has no "column" and no "row" a sentence could mean)."""
    return {k: a for k, a in floats(inputs).items() if a.ndim <= 2}


def _centred(a: np.ndarray) -> np.ndarray:
    return a - a.mean(axis=0, keepdims=True)


def _standard(a: np.ndarray) -> np.ndarray | None:
    centred = _centred(a)
    spread = centred.std(axis=0, keepdims=True)
    return None if np.any(spread == 0) else centred / spread


def signs(n: int) -> np.ndarray:
    """+1, -1, +1, ... over n rows, the last 0 when n is odd: a column of mean 0."""
    out = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    if n % 2:
        out[-1] = 0.0
    return out


def _balanced(a: np.ndarray) -> np.ndarray:
    """``a`` moved to mean 0 at its own size: the centred columns plus each column's mean with the
    signs of :func:`signs` (still mean 0, entries as far from 0 as ``a``'s)."""
    means = a.mean(axis=0, keepdims=True)
    s = signs(a.shape[0]).reshape((-1,) + (1,) * (a.ndim - 1))
    return a - means + s * means


def further(probe: str, inputs: Inputs) -> list[dict[str, Any]] | None:
    """The other inputs a probe's condition is asked on, beside those :func:`right_when` gives it.
    Centring an input also shrinks it: a value right on the centred input may be right only because
    its numbers got small (an exp that no longer overflows). So "right when every column of X has
    mean 0" is asked again on X moved to mean 0 at its own size (:func:`_balanced`), and holds only
    where both answers are right. (A standardised input is small by its condition: asked once.)
    None: the condition cannot be so asked again (the probe is not asked)."""
    kind, _sep, key = probe.partition(":")
    if kind != "centred":
        return []
    arrays = tables(inputs)
    keys = [k for k, a in arrays.items() if a.shape[0] >= 2] if key == "*" else [key]
    if any(k not in arrays for k in keys):
        return None
    return [{k: _balanced(arrays[k]) for k in keys}]


def right_when(inputs: Inputs) -> Iterator[tuple[str, dict[str, Any]]]:
    """(probe, changed arguments) for the probes whose answer is compared with the reference's."""
    arrays = tables(inputs)
    every = len(arrays) == len(floats(inputs))  # "every input": none of more axes left out
    for key, a in arrays.items():
        if a.shape[0] >= 2 and not np.allclose(_centred(a), a):
            yield f"centred:{key}", {key: _centred(a)}
    if len(arrays) >= 2 and every:
        changed = {k: _centred(a) for k, a in arrays.items() if a.shape[0] >= 2}
        if len(changed) >= 2:
            yield "centred:*", changed
    for key, a in arrays.items():
        standard = _standard(a) if a.shape[0] >= 2 else None
        if standard is not None:
            yield f"standard:{key}", {key: standard}
    if len(arrays) >= 2 and every:
        standards = {k: _standard(a) for k, a in arrays.items() if a.shape[0] >= 2}
        if len(standards) >= 2 and all(v is not None for v in standards.values()):
            yield "standard:*", dict(standards)
    for rows in (2, 1):
        changed = cut_rows(inputs, rows)
        if changed:
            yield f"rows:{rows}", changed
    for key, value in scalars(inputs).items():
        for v in (0, 1):
            if value != v:
                yield f"set:{key}={v}", {key: float(v)}
    for key, a in floats(inputs).items():
        if np.any(a != 0):
            yield f"zeros:{key}", {key: np.zeros_like(a)}
        if np.any(a != 1):
            yield f"ones:{key}", {key: np.ones_like(a)}
        if a.ndim == 2 and a.shape[0] == a.shape[1] >= 2 and not np.allclose(a, np.eye(len(a))):
            yield f"identity:{key}", {key: np.eye(len(a))}


def cut_rows(inputs: Inputs, rows: int) -> dict[str, np.ndarray]:
    """Every float input with as many rows as the first one's (more than ``rows``), cut to its first
    ``rows``; {} when there is no such first input, or when one of those inputs has more than two axes
    (its first axis holds tables, not rows)."""
    arrays = floats(inputs)
    if not arrays:
        return {}
    n = next(iter(arrays.values())).shape[0]
    if n <= rows:
        return {}
    cut = {k: a for k, a in arrays.items() if a.shape[0] == n}
    if any(a.ndim > 2 for a in cut.values()):
        return {}
    return {k: a[:rows] for k, a in cut.items()}


def scalars(inputs: Inputs) -> dict[str, float]:
    """The numbers given to the function that are no axis and no size (an epsilon, a temperature)."""
    call = inputs.call
    if call is None:
        return {}
    roles = getattr(call, "roles", None) or {}
    out = {}
    for key, value in call.inputs.items():
        if roles.get(key) == "axis" or "axis" in key:
            continue
        if isinstance(value, (float, np.floating)) and np.isfinite(value):
            out[key] = float(value)
    return out


def invariances(inputs: Inputs) -> Iterator[tuple[str, dict[str, Any]]]:
    """(probe, changed arguments) for the probes whose answer is compared with the student's own."""
    arrays = floats(inputs)
    for key, a in arrays.items():
        yield f"double:{key}", {key: 2.0 * a}
        yield f"shift:{key}", {key: a + 1.0}
        if a.ndim == 2 and a.shape[1] >= 2:
            yield f"shiftcols:{key}", {key: a + np.arange(a.shape[1])[None, :]}
    ordered = reordered(inputs)
    if ordered is not None:
        keys, changed = ordered
        yield "order:" + "+".join(keys), changed


def reordered(inputs: Inputs) -> tuple[list[str], dict[str, np.ndarray]] | None:
    """The inputs with as many rows as the first one's, their rows in one other order (reversed); None
    when one of those has more than two axes (its first axis holds tables, not rows)."""
    arrays = floats(inputs)
    if not arrays:
        return None
    n = next(iter(arrays.values())).shape[0]
    if n < 3:
        return None
    keys = [k for k, a in arrays.items() if a.shape[0] == n]
    if any(arrays[k].ndim > 2 for k in keys):
        return None
    return keys, {k: arrays[k][::-1] for k in keys}
