"""The right function with one of its settings changed: an axis given as another axis, a number given
to it (an epsilon, a temperature) as 0 or 1 -- "your values are what the right function gives for
axis = 0". The reference is called again on each; nothing of the student's.

An axis is an integer argument named so (``axis``, ``dim_axis``) or given the role "axis" by the
grader (``check.Call(..., roles={"dim": "axis"})``); every other axis of the value's dimensions is
tried, counted from 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradekit.graders.relations import probing, words
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.i18n.text import Text


class Keyword(Family):
    name = "keyword"
    rank = 112
    cost = Cost(reference=12)

    def search_call(self, whole: Whole) -> None:
        if not whole.wants(self):
            return
        for key, value in _settings(whole):
            if not whole.wants(self, f"{key}="):
                continue
            out = _call(whole, self, key, value)
            if out is not None and self.compare(whole, f"{key}={value}", out):
                return

    def sentence(self, arg, relation) -> Text | None:
        key, _sep, value = arg.partition("=")
        return words.gives(f"{key} = {value}")


def _settings(whole: Whole) -> list[tuple[str, Any]]:
    """(argument, another value) for each axis and number of the call."""
    call = whole.call
    out: list[tuple[str, Any]] = []
    ndim = max((np.ndim(a) for a in whole.inputs.arrays.values()), default=0)
    roles = getattr(call, "roles", None) or {}
    given = {**call.inputs, **call.keywords}
    for key, value in given.items():
        axis = roles.get(key) == "axis" or "axis" in key
        if axis and isinstance(value, (int, np.integer)) and not isinstance(value, bool) and ndim:
            here = int(value) % ndim
            out += [(key, k) for k in range(ndim) if k != here]
    for key, value in probing.scalars(whole.inputs).items():
        out += [(key, v) for v in (0, 1) if value != v]
    return out


def _call(whole: Whole, family: Family, key: str, value: Any):
    call = whole.call
    if key in call.keywords:
        return whole.reference(family, whole.inputs.args_with(), {**call.keywords, key: value})
    return whole.reference(family, whole.inputs.args_with(**{key: value}))


FAMILY = Keyword()
