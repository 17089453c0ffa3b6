"""The right function on consecutive pieces of its inputs: the axes of one length N cut into pieces of
b entries, b an integer input (a block, a chunk, a window), the right function called on each piece,
and what it gave combined -- their mean or their sum ("combine the blocks" read as an average),
put together along the cut axis (each piece on its own: fixed chunks, not a window that slides), or
one piece alone (the first, or the last: a state started again in every block).

Cut are every input with an axis of that length, or all of them but one (the queries of an
attention, which are not cut into blocks with its keys). The reference is called once per piece.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from gradekit.graders.relations import words
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.i18n.text import Text, phrase

MOST = 8  # pieces a search calls the reference on, for one way of cutting
SAID = {
    "mean": phrase(
        "your values are the mean of what the right function gives for each piece of {size} entries of {names}",
        zh="你的结果是正确的函数对 {names} 每 {size} 个一段分别算出的结果的平均",
    ),
    "sum": phrase(
        "your values are the sum of what the right function gives for each piece of {size} entries of {names}",
        zh="你的结果是正确的函数对 {names} 每 {size} 个一段分别算出的结果之和",
    ),
    "joined": phrase(
        "your values are what the right function gives for each piece of {size} entries of {names} on its own, "
        "put together",
        zh="你的结果是正确的函数对 {names} 每 {size} 个一段各自算出、再拼接起来的结果",
    ),
    "first": phrase(
        "your values are what the right function gives for the first piece of {size} entries of {names} alone",
        zh="你的结果是正确的函数只对 {names} 的第一段（{size} 个）算出的结果",
    ),
    "last": phrase(
        "your values are what the right function gives for the last piece of {size} entries of {names} alone",
        zh="你的结果是正确的函数只对 {names} 的最后一段（{size} 个）算出的结果",
    ),
}


class Pieces(Family):
    name = "pieces"
    rank = 115
    cost = Cost(reference=64)

    def search_call(self, whole: Whole) -> None:
        if not whole.wants(self) or not whole.inputs.ints:
            return
        for size, b, cut in _cuttings(whole):
            if whole.left(self) < -(-cut.length // b):
                return
            prefix = f"{size}:{'+'.join(cut.keys)}"
            if not any(whole.wants(self, f"{c}:{prefix}") for c in SAID):
                continue
            outs = []
            for start in range(0, cut.length, b):
                out = whole.reference(self, cut.args(whole, slice(start, start + b)))
                if out is None:
                    break
                outs.append(out)
            if len(outs) < -(-cut.length // b):
                continue
            for combine, value in _combined(outs, whole.got, cut.length):
                if self.compare(whole, f"{combine}:{prefix}", value):
                    return  # explained

    def sentence(self, arg, relation) -> Text | None:
        combine, size, keys = arg.split(":", 2)
        said = SAID.get(combine)
        return said.format(size=size, names=words.names(keys.split("+"))) if said else None


class _Cut:
    """The inputs cut along their axes of one length."""

    def __init__(self, length: int, axes: list[tuple[str, int]]):
        self.length = length
        self.axes = axes
        self.keys = list(dict.fromkeys(k for k, _axis in axes))

    def args(self, whole: Whole, piece: slice) -> list:
        arrays = whole.inputs.arrays
        changed = {}
        for key in self.keys:
            index = [slice(None)] * arrays[key].ndim
            for k, axis in self.axes:
                if k == key:
                    index[axis] = piece
            changed[key] = arrays[key][tuple(index)]
        return whole.inputs.args_with(**changed)


def _cuttings(whole: Whole) -> Iterator[tuple[str, int, _Cut]]:
    """(the integer input's name, its value, a cut) for each integer b and length N with 2 to MOST pieces."""
    arrays = whole.inputs.arrays
    lengths = sorted({n for a in arrays.values() for n in a.shape})
    for size, b in whole.inputs.ints.items():
        if b < 1 or size in whole.inputs.axes:
            continue
        for n in lengths:
            if not 2 <= -(-n // b) <= MOST:
                continue
            axes = [(k, axis) for k, a in arrays.items() for axis, m in enumerate(a.shape) if m == n]
            keys = list(dict.fromkeys(k for k, _axis in axes))
            yield size, b, _Cut(n, axes)
            if len(keys) >= 3:
                for left_out in keys:
                    yield size, b, _Cut(n, [(k, axis) for k, axis in axes if k != left_out])


def _combined(outs: list[list[np.ndarray]], got: list[np.ndarray], length: int):
    """(how, the pieces' results combined that way, part by part), for each way whose shapes fit."""
    count = len(outs)
    parts = range(len(got))
    same = all(o[p].shape == outs[0][p].shape for o in outs for p in parts)
    if same:
        yield "mean", [np.mean([o[p] for o in outs], axis=0) for p in parts]
        yield "sum", [np.sum([o[p] for o in outs], axis=0) for p in parts]
    joined: list[np.ndarray] = []
    for p in parts:
        axis = next(
            (a for a in range(got[p].ndim) if got[p].shape[a] == length and outs[0][p].ndim == got[p].ndim), None
        )
        if axis is None:
            joined = []
            break
        try:
            joined.append(np.concatenate([o[p] for o in outs], axis=axis))
        except ValueError:
            joined = []
            break
    if joined:
        yield "joined", joined
    yield "first", outs[0]
    if count > 1:
        yield "last", outs[-1]


FAMILY = Pieces()
