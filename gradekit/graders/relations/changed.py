"""The right function on changed inputs: an input times −1, 2 or ½, its rows scaled to length 1,
centred or standardised (a LayerNorm), replaced by zeros (an input that does not count: equal
scores, a mean), by the identity or by another input, two inputs
swapped, an integer input set to 1 or moved by one, the last or the first entry dropped along every
axis of one length (a loop that stops one short, or starts one late).

The reference is called again on each change, in the grading process; what it
gives is compared with every part of the student's value.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np

from gradekit.graders.relations import words
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.graders.relations.inputs import Inputs
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text, phrase

UNIT_ROWS = phrase("{names} with each row scaled to length 1", zh="{names} 的每一行都缩放成长度 1")
CENTRED = phrase("{names} with their mean row subtracted", zh="{names} 减去各行的平均行")
STANDARDISED = phrase(
    "{names} with each row centred and scaled to standard deviation 1",
    zh="{names} 的每一行都减去均值、再缩放成标准差 1",
)
IDENTITY = phrase("{name} replaced by the identity matrix", zh="{name} 换成单位矩阵")
ZEROS = phrase("{name} replaced by zeros", zh="{name} 换成全零")
IN_PLACE = phrase("{new} in place of {old}", zh="用 {new} 代替 {old}")
SWAPPED = phrase("{a} and {b} swapped", zh="{a} 和 {b} 互换")


class Changed(Family):
    name = "changed"
    rank = 110
    cost = Cost(reference=80)

    def search_call(self, whole: Whole) -> None:
        if not whole.wants(self):
            return
        for key, args in transforms(whole.inputs):
            if not whole.wants(self, key):
                continue
            out = whole.reference(self, args)
            if out is None:
                continue
            self.compare(whole, key, out)

    def alias(self, arg: str, detail: dict) -> str:
        kind = arg.split(":", 1)[0]
        return kind if kind in ("unit", "centred", "standard") else arg  # the fewest inputs changed are said

    def sentence(self, arg, relation) -> Text | None:
        return words.gives(change(arg), bool(relation.details.get("broadcast")))


def transforms(inputs: Inputs) -> Iterator[tuple[str, list[Any]]]:
    """(key, changed positional arguments) for every change the search tries, in order."""
    assert inputs.call is not None
    names, arrays, args_with = inputs.names(), inputs.arrays, inputs.args_with
    for key, a in arrays.items():
        for factor, text in ((-1.0, "-1"), (2.0, "2"), (0.5, "1/2")):
            yield f"scale:{key}:{text}", args_with(**{key: factor * a})
    unit = [k for k, a in arrays.items() if a.ndim >= 1 and np.all(np.linalg.norm(a, axis=-1) > 0)]
    for group in _subsets(unit, arrays):
        yield (
            "unit:" + "+".join(group),
            args_with(**{k: arrays[k] / np.linalg.norm(arrays[k], axis=-1, keepdims=True) for k in group}),
        )
    centre = [k for k, a in arrays.items() if a.ndim >= 2 and a.shape[-2] >= 2]
    for group in _subsets(centre, arrays):
        yield (
            "centred:" + "+".join(group),
            args_with(**{k: arrays[k] - arrays[k].mean(axis=-2, keepdims=True) for k in group}),
        )
    standard = [k for k, a in arrays.items() if a.ndim >= 1 and a.shape[-1] >= 2 and np.all(a.std(axis=-1) > 0)]
    for group in _subsets(standard, arrays):
        yield (
            "standard:" + "+".join(group),
            args_with(
                **{
                    k: (arrays[k] - arrays[k].mean(axis=-1, keepdims=True)) / arrays[k].std(axis=-1, keepdims=True)
                    for k in group
                }
            ),
        )
    for key, a in arrays.items():
        if a.size and np.any(a != 0):
            yield f"zero:{key}", args_with(**{key: np.zeros_like(a)})
    for key, a in arrays.items():
        if a.ndim == 2 and a.shape[0] == a.shape[1] and not close(a, np.eye(a.shape[0]), (1e-5, 1e-8)):
            yield f"identity:{key}", args_with(**{key: np.eye(a.shape[0])})
    for old, new in itertools.permutations(arrays, 2):
        if arrays[old].shape == arrays[new].shape:
            yield f"inplace:{old}={new}", args_with(**{old: arrays[new]})
    for one, other in itertools.combinations(names, 2):  # two inputs a function could take for each other
        if (
            one in arrays
            and other in arrays
            and arrays[one].ndim == arrays[other].ndim
            and arrays[one].shape[-1:] == arrays[other].shape[-1:]
        ):
            yield f"swap:{one},{other}", args_with(**{one: inputs.call.inputs[other], other: inputs.call.inputs[one]})
    for key, n in inputs.ints.items():
        for text, value in (("=1", 1), ("-1", n - 1), ("+1", n + 1)):
            if value >= 1 and (text != "-1" or n - 1 != 1) and (text != "=1" or n != 1):
                yield f"int:{key}{text}", args_with(**{key: value})
    yield from _cuts(inputs)


def _cuts(inputs: Inputs) -> Iterator[tuple[str, list[Any]]]:
    """Every axis of one length m cut to its first m - 1 entries (or its last m - 1), in every input;
    when three inputs or more have that length, also in all of them but one (the keys and values cut,
    not the queries of the same length)."""
    arrays = inputs.arrays
    lengths = sorted({n for a in arrays.values() for n in a.shape if n >= 2})
    for m in lengths:
        every = [(k, axis) for k, a in arrays.items() for axis, n in enumerate(a.shape) if n == m]
        keys = list(dict.fromkeys(k for k, _axis in every))
        groups = [every] + ([[(k, a) for k, a in every if k != out] for out in keys] if len(keys) >= 3 else [])
        for where, (end, cut) in itertools.product(groups, (("-1", slice(None, -1)), ("+1", slice(1, None)))):
            changed = {}
            for key in dict.fromkeys(k for k, _axis in where):
                index = [slice(None)] * arrays[key].ndim
                for k, axis in where:
                    if k == key:
                        index[axis] = cut
                changed[key] = arrays[key][tuple(index)]
            yield f"cut:{end}:" + ",".join(f"{k}.{axis}" for k, axis in where), inputs.args_with(**changed)


def _subsets(keys: list[str], arrays: dict[str, np.ndarray]) -> list[tuple[str, ...]]:
    """Each input alone, the pairs whose rows have the same width (what a dot product combines), all."""
    out: list[tuple[str, ...]] = [(k,) for k in keys]
    out += [(a, b) for a, b in itertools.combinations(keys, 2) if arrays[a].shape[-1] == arrays[b].shape[-1]]
    if len(keys) > 2:
        out.append(tuple(keys))
    return out


def change(arg: str) -> Any:
    """How a change reads: ``-x``, ``2·X``, a phrase, ``weights[:, :-1] and V[:-1]``."""
    kind, _sep, rest = arg.partition(":")
    if kind == "scale":
        key, _sep, factor = rest.rpartition(":")
        return {"-1": f"-{key}", "2": f"2·{key}", "1/2": f"{key}/2"}.get(factor, f"{factor}·{key}")
    if kind == "unit":
        return UNIT_ROWS.format(names=words.names(rest.split("+")))
    if kind == "centred":
        return CENTRED.format(names=words.names(rest.split("+")))
    if kind == "standard":
        return STANDARDISED.format(names=words.names(rest.split("+")))
    if kind == "identity":
        return IDENTITY.format(name=rest)
    if kind == "zero":
        return ZEROS.format(name=rest)
    if kind == "inplace":
        old, _sep, new = rest.partition("=")
        return IN_PLACE.format(old=old, new=new)
    if kind == "swap":
        a, _sep, b = rest.partition(",")
        return SWAPPED.format(a=a, b=b)
    if kind == "int":
        for sign in ("=1", "-1", "+1"):
            if rest.endswith(sign):
                key = rest[: -len(sign)]
                return f"{key} = 1" if sign == "=1" else f"{key} {sign[0]} 1"
    if kind == "cut":
        end, _sep, where = rest.partition(":")
        axes: dict[str, list[int]] = {}
        for item in where.split(","):
            key, _sep, axis = item.rpartition(".")
            axes.setdefault(key, []).append(int(axis))
        shown = []
        for key, cut in axes.items():
            last = max(cut)
            index = [(":-1" if end == "-1" else "1:") if i in cut else ":" for i in range(last + 1)]
            shown.append(f"{key}[{', '.join(index)}]")
        return words.names(shown)
    return rest


FAMILY = Changed()
