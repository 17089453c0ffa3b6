"""The right function on a transformed input: S = ref(t(A)) for one input A and t an elementwise
function of :data:`.elementwise.TRANSFORMS` (tanh of the tokens, |Q|, ReLU of the scores' input ...),
A clipped to a common range ([-1, 1], [0, 1], [-5, 5] ...), rounded to k decimals or stored in
float16. A function among the inputs (a score function passed in) is transformed in what it returns:
S = ref(t∘f), "max(score(…), 0)" -- a mistake made with what the function gave, inside the loop that
calls it."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import words
from gradekit.graders.relations.elementwise import TRANSFORMS, Transform
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text

BOUNDS = (0.5, 1.0, 2.0, 3.0, 5.0, 10.0)


def _clip(low: float, high: float) -> Transform:
    return Transform(
        f"clip:{low:g}:{high:g}", lambda x: np.clip(x, low, high), lambda x: True, f"clip({{}}, {low:g}, {high:g})"
    )


def _round(k: int) -> Transform:
    return Transform(f"round:{k}", lambda x: np.round(x, k), lambda x: True, f"round({{}}, {k})")


def _float16(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float16).astype(np.float64)


HALF = Transform("float16", _float16, lambda x: bool(np.all(np.abs(x) < 65504)), "float16({})")
CHANGES = (
    TRANSFORMS
    + tuple(_clip(-c, c) for c in BOUNDS)
    + (_clip(0.0, 1.0),)
    + tuple(_round(k) for k in (0, 1, 2))
    + (HALF,)
)
FORMULAS = {t.name: t.formula for t in CHANGES}


class Transformed(Family):
    name = "transformed"
    rank = 130
    cost = Cost(reference=130)

    def search_call(self, whole: Whole) -> None:
        for key, function in whole.inputs.functions.items():
            name = words.called(key)
            for transform in CHANGES:
                if not whole.wants(self, f"{transform.name}:{name}"):
                    continue
                out = whole.reference(self, whole.inputs.args_with(**{key: _after(function, transform)}))
                if out is None:
                    continue
                if self.compare(whole, f"{transform.name}:{name}", out):
                    return
        for key, A in whole.inputs.arrays.items():
            if not np.all(np.isfinite(A)):
                continue
            for transform in CHANGES:
                if not transform.defined(A) or not whole.wants(self, f"{transform.name}:{key}"):
                    continue
                with np.errstate(all="ignore"):
                    changed = transform.apply(A)
                if not np.all(np.isfinite(changed)) or close(changed, A, whole.tol):
                    continue
                out = whole.reference(self, whole.inputs.args_with(**{key: changed}))
                if out is None:
                    continue
                if self.compare(whole, f"{transform.name}:{key}", out):
                    return  # explained: the rest would cost calls and say no more

    def sentence(self, arg, relation) -> Text | None:
        name, _sep, key = arg.rpartition(":")
        formula = FORMULAS.get(name)
        if formula is None:
            return None
        return words.gives(formula.format(key), bool(relation.details.get("broadcast")))


def _after(function, transform: Transform):
    """``function`` with ``transform`` applied to what it returns."""

    def changed(*args, **kwargs):
        with np.errstate(all="ignore"):
            return transform.apply(np.asarray(function(*args, **kwargs), dtype=np.float64))

    return changed


FAMILY = Transformed()
