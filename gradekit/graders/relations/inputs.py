"""A failed check's call, as the families read its inputs: arrays, integers, functions, axes, sizes.

The call is the grader's :class:`gradekit.graders.check.Call`: the inputs by name
(positional, in order), the keywords, the sizes a factor may be made of (default:
the integer inputs that name no axis, and every input's shape, as ``K.shape[0]``).
A function among the inputs (a score function passed in) is one the grader's process runs:
the student's own functions, which run in the sandbox, are not changed (each call a round trip).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from gradekit.graders.relations.values import floats

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.graders.check import Call


class Inputs:
    """The call's inputs, as the relations use them."""

    def __init__(self, call: Call | None):
        self.call = call
        self.arrays: dict[str, np.ndarray] = {}  # the float inputs (booleans and integers are not changed)
        self.ints: dict[str, int] = {}
        self.functions: dict[str, Callable[..., Any]] = {}  # the grader's functions among the inputs
        self.axes: dict[str, int] = {}  # integer arguments that name an axis
        self.sizes: dict[str, int] = {}
        if call is None:
            return
        for key, value in call.inputs.items():
            if isinstance(value, bool) or value is None:
                continue
            if isinstance(value, (int, np.integer)):
                self.ints[key] = int(value)
            elif callable(value) and not isinstance(value, (np.ndarray, type)):
                if not hasattr(value, "give_up"):  # the student's function runs in the sandbox: left alone
                    self.functions[key] = value
            else:
                arr = floats(value)
                if arr is not None and np.asarray(value).dtype.kind == "f":
                    self.arrays[key] = arr
        roles = getattr(call, "roles", None) or {}
        for key, value in {**call.inputs, **call.keywords}.items():
            named = "axis" in key or roles.get(key) == "axis"
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and named:
                self.axes[key] = int(value)
        if call.sizes is not None:
            self.sizes = {k: int(v) for k, v in call.sizes.items() if int(v) > 1}
        else:
            self.sizes = {k: v for k, v in self.ints.items() if v > 1 and k not in self.axes}
            for key, arr in self.arrays.items():
                for axis, n in enumerate(arr.shape):
                    if n > 1:
                        self.sizes[f"len({key})" if arr.ndim == 1 else f"{key}.shape[{axis}]"] = int(n)

    def names(self) -> list[str]:
        return list(self.call.inputs) if self.call is not None else []

    def args_with(self, **changes: Any) -> list[Any]:
        """The positional arguments with some inputs changed."""
        assert self.call is not None
        return [changes.get(n, self.call.inputs[n]) for n in self.call.inputs]

    def offsets(self) -> list[tuple[str, np.ndarray]]:
        """The inputs and the products of two or three of them (``X @ W_v @ W_o``)."""
        out = list(self.arrays.items())
        matrices = [(k, a) for k, a in self.arrays.items() if a.ndim == 2]
        for length in (2, 3):
            for chain in itertools.permutations(matrices, length):
                if all(chain[i][1].shape[1] == chain[i + 1][1].shape[0] for i in range(length - 1)):
                    value = chain[0][1]
                    for _, a in chain[1:]:
                        value = value @ a
                    out.append((" @ ".join(k for k, _ in chain), value))
        return out

    def axis_names(self, axis: int, ndim: int) -> list[str]:
        """How an axis may be named in a key: by the argument that asked for it, as the last one,
        by its number."""
        names = [f"={key}" for key, value in self.axes.items() if ndim and value % ndim == axis]
        if axis == ndim - 1:
            names.append("last")
        return names + [str(axis)]
