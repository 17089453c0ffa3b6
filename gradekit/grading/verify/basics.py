"""What every claim's check reads: one failed check's values for one subject, its call, its tolerance.

Written apart from the relation search on purpose (nothing of ``gradekit.graders.relations`` is
imported): a claim is recomputed from the raw values with numpy and these few helpers, so that a
slip in a search cannot confirm itself.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from gradekit.graders.witness import Witness


class Case:
    """One failed check, seen for one subject: the student's parts ``S``, the right ones ``R``, the
    call, and the reference's value on changed inputs (each computed once)."""

    def __init__(self, raw: Witness, subject: str, detail: dict | None, said: dict):
        self.raw = raw
        self.subject = subject
        self.detail = detail or {}  # what the search found here (a fitted c), a witness to check, or {}
        self.said = said  # what the sentence shows (the relation's details, over its checks)
        base, _sep, self.derived = subject.partition("~")  # "f#0~V": the weights f mixes V's rows with
        self.indices = raw.part(base) or []
        self.S = [raw.got[i] for i in self.indices]
        self.R = [raw.expected[i] for i in self.indices]
        self.rtol, self.atol = raw.tol
        self.call = raw.call
        self._cache: dict[str, list[np.ndarray] | None] = {}

    @property
    def present(self) -> bool:
        return bool(self.indices)

    def near(self, a: Any, b: Any) -> bool:
        """a equals b within the check's tolerance, shapes equal (NaN equal to NaN, inf to the same inf)."""
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        if a.shape != b.shape:
            return False
        with np.errstate(all="ignore"):
            return bool(np.allclose(a, b, rtol=self.rtol, atol=self.atol, equal_nan=True))

    def inputs(self) -> dict[str, Any]:
        return dict(self.call.inputs) if self.call is not None else {}

    def arrays(self) -> dict[str, np.ndarray]:
        """The call's float inputs, as the claims name them."""
        out = {}
        for key, value in self.inputs().items():
            if isinstance(value, (bool, int, np.integer)) or value is None or callable(value):
                continue
            try:
                arr = np.asarray(value)
            except Exception:  # noqa: BLE001 - not numbers
                continue
            if arr.dtype.kind == "f":
                out[key] = arr.astype(np.float64)
        return out

    def reference(self, changes: dict[str, Any], key: str | None = None) -> list[np.ndarray] | None:
        """The reference's parts of this subject on the inputs with ``changes``; None when it raises (or
        there is no call). Cached by ``key``."""
        if key is not None and key in self._cache:
            return self._cache[key]
        out = None
        call = self.call
        if call is not None and call.reference is not None:
            args = [changes.get(name, value) for name, value in call.inputs.items()]
            try:
                with np.errstate(all="ignore"):
                    value = call.reference(*args, **call.keywords)
                out = self._parts(value)
            except Exception:  # noqa: BLE001 - a change the reference does not take: nothing to compare
                out = None
        if key is not None:
            self._cache[key] = out
        return out

    def _parts(self, value: Any) -> list[np.ndarray] | None:
        call = self.call
        assert call is not None
        count = len(self.raw.got)
        if call.part is not None:
            value = [value[call.part]] if isinstance(value, (tuple, list)) and len(value) > call.part else None
        elif count > 1:
            value = list(value) if isinstance(value, (tuple, list)) and len(value) == count else None
        else:
            value = [value]
        if value is None:
            return None
        out = []
        for v in value:
            arr = np.asarray(v)
            if arr.dtype.kind not in "biuf":
                return None
            out.append(arr.astype(np.float64))
        return [out[i] for i in self.indices]

    def gives(self, out: list[np.ndarray] | None, broadcast: bool = False) -> bool | None:
        """Whether ``out`` (the reference's parts on changed inputs) is the student's value; a part
        repeated to the student's shape only when the sentence says so (``broadcast``)."""
        if out is None:
            return False
        for S, T in zip(self.S, out, strict=True):
            if S.shape != T.shape:
                fits = T.ndim == S.ndim and all(t in (1, s) for t, s in zip(T.shape, S.shape, strict=True))
                if not (broadcast and fits):
                    return False
                T = np.broadcast_to(T, S.shape)
            if not self.near(S, T):
                return False
        return True


def axis(name: str, ndim: int, case: Case) -> int | None:
    """An axis as a claim names it: ``=axis`` (the value of that argument), ``last``, a number."""
    if ndim == 0:
        return None
    if name.startswith("="):
        call = case.call
        value = None if call is None else {**call.inputs, **call.keywords}.get(name[1:])
        return int(value) % ndim if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else None
    if name == "last":
        return ndim - 1
    if name.lstrip("-").isdigit():
        k = int(name)
        return k % ndim if -ndim <= k < ndim else None
    return None


def sizes(case: Case) -> dict[str, int]:
    """The sizes a claim's expression may name, as the grader gave them or as the inputs have them."""
    call = case.call
    if call is None:
        return {}
    if call.sizes is not None:
        return {k: int(v) for k, v in call.sizes.items()}
    axes = {k for k in {**call.inputs, **call.keywords} if "axis" in k}
    out = {
        k: int(v)
        for k, v in call.inputs.items()
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and k not in axes
    }
    for key, arr in case.arrays().items():
        for i, n in enumerate(arr.shape):
            out[f"len({key})" if arr.ndim == 1 else f"{key}.shape[{i}]"] = int(n)
    return out


_OPS: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
}
_NAMES = {"sqrt": math.sqrt, "log": math.log, "pi": math.pi, "e": math.e}


def evaluate(text: str, known: dict[str, int]) -> float | None:
    """The number an expression of a sentence says (``sqrt(d_k/(d_k - 1))``, ``2·n``, ``ln 2``,
    ``n^(1/4)``, ``1/sqrt(K.shape[1])``, ``1/2·sqrt(d)``: one over all the rest) with these sizes; None when
    it names a size not here."""
    if text.startswith("1/"):  # a factor said as a division: "divided by 2·sqrt(d)"
        below = evaluate(text[2:], known)
        return 1.0 / below if below else None
    python = text.replace("·", "*").replace("^", "**").replace("π", "pi")
    python = python.replace("ln 2", "log(2)").replace("ln 10", "log(10)")
    values: dict[str, float] = {}
    for k, name in enumerate(sorted(known, key=len, reverse=True)):
        if name in python:
            values[f"_s{k}"] = float(known[name])
            python = python.replace(name, f"_s{k}")
    try:
        tree = ast.parse(python, mode="eval")
    except SyntaxError:
        return None

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return float(_OPS[type(node.op)](walk(node.left), walk(node.right)))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return float(_OPS[type(node.op)](walk(node.operand)))
        if isinstance(node, ast.Name):
            if node.id in values:
                return values[node.id]
            if node.id in ("pi", "e"):
                return float(_NAMES[node.id])  # type: ignore[arg-type]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("sqrt", "log"):
            return float(_NAMES[node.func.id](walk(node.args[0])))  # type: ignore[operator]
        raise ValueError(text)

    try:
        value = walk(tree)
    except (ValueError, ZeroDivisionError, OverflowError, IndexError):
        return None
    return value if math.isfinite(value) else None


def two(value: float) -> str:
    """A number as a sentence shows it: two significant digits."""
    return f"{value:.2g}"


def fit(S: np.ndarray, T: np.ndarray) -> float | None:
    """The least-squares c of S ≈ c·T (None when T is 0)."""
    den = float(np.sum(T * T))
    return float(np.sum(S * T)) / den if den > 0 and np.isfinite(den) else None
