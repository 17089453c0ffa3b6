"""The right function on a transformed input: S = ref(t(A)) for one input A and t an elementwise
function of :data:`.elementwise.TRANSFORMS` (tanh of the tokens, |Q|, ReLU of the scores' input ...)."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import words
from gradekit.graders.relations.elementwise import TRANSFORMS
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.graders.relations.values import close, matches
from gradekit.i18n.text import Text

FORMULAS = {t.name: t.formula for t in TRANSFORMS}


class Transformed(Family):
    name = "transformed"
    rank = 130
    cost = Cost(reference=80)

    def search_call(self, whole: Whole) -> None:
        for key, A in whole.inputs.arrays.items():
            if not np.all(np.isfinite(A)):
                continue
            for transform in TRANSFORMS:
                if not transform.defined(A) or not whole.wants(self, f"{transform.name}:{key}"):
                    continue
                with np.errstate(all="ignore"):
                    changed = transform.apply(A)
                if not np.all(np.isfinite(changed)) or close(changed, A, whole.tol):
                    continue
                out = whole.reference(self, whole.inputs.args_with(**{key: changed}))
                if out is None:
                    continue
                holds, broadcast = matches(whole.got, out, whole.tol)
                self.test(whole, f"{transform.name}:{key}", holds, {"broadcast": broadcast} if broadcast else None)

    def sentence(self, arg, relation) -> Text | None:
        name, _sep, key = arg.partition(":")
        formula = FORMULAS.get(name)
        if formula is None:
            return None
        return words.gives(formula.format(key), bool(relation.details.get("broadcast")))


FAMILY = Transformed()
