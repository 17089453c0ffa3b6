"""A function of an input, not of the right value: S = t(A) for an input A of the same shape and t
an elementwise function of :data:`.elementwise.TRANSFORMS` (a sigmoid of the scores in place of their
softmax), A itself unchanged, or A divided by its sum along an axis."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import words
from gradekit.graders.relations.elementwise import TRANSFORMS
from gradekit.graders.relations.family import Family, Part, axis_of
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text, phrase

IS = phrase("your values are {formula}", zh="你的结果是 {formula}")
UNCHANGED = phrase("your values are {name} itself, unchanged", zh="你的结果就是 {name} 本身，没有变")
NORMALISED = phrase("your values are {name} divided by its sum along {axis}", zh="你的结果是 {name} 除以它沿{axis}的和")
FORMULAS = {t.name: t.formula for t in TRANSFORMS}


class OfInput(Family):
    name = "input"
    rank = 100

    def search(self, part: Part) -> None:
        S, tol = part.S, part.tol
        for key, A in part.inputs.arrays.items():
            if A.shape != S.shape:
                continue
            self.test(part, f"same:{key}", close(S, A, tol))  # -inf where -inf: the input handed back
            if not np.all(np.isfinite(A)):
                continue
            for transform in TRANSFORMS:
                if transform.defined(A):
                    with np.errstate(all="ignore"):
                        T = transform.apply(A)
                    if close(T, A, tol):
                        continue  # t leaves this input as it is (sqrt of zeros): that is A itself, tested above
                    self.test(part, f"{transform.name}:{key}", close(S, T, tol))
            for axis in range(A.ndim):
                total = np.sum(A, axis=axis, keepdims=True)
                if A.shape[axis] >= 2 and np.all(np.abs(total) > tol[1]):
                    self.per_axis(part, "normalised:{}:" + key, axis, close(S, A / total, tol))

    def alias(self, arg: str, detail: dict) -> str:
        parts = arg.split(":")
        return ":".join(parts[:1] + parts[2:]) if parts[0] == "normalised" else arg

    def sentence(self, arg, relation) -> Text | None:
        kind, _sep, rest = arg.partition(":")
        if kind == "same":
            return UNCHANGED.format(name=rest)
        if kind == "normalised":
            axis, _sep, key = rest.partition(":")
            return NORMALISED.format(name=key, axis=words.axis(axis_of("x:" + axis)))
        formula = FORMULAS.get(kind)
        return IS.format(formula=formula.format(rest)) if formula else None


FAMILY = OfInput()
