"""The weights an input's rows are mixed with. A function linear in an input A of n rows (attention
in its values: out = W·V) gives, for A the n × n identity, the weights W themselves; when the right
function and the student's both are (W·A is what each gave), the student's weights are compared with
the right ones as a value is, by every family that compares values: where they differ, what they sum
to, a factor, an order... ("The weights the rows of V are mixed with: each slice of your values along
axis 0 sums to 1, and the right ones' slices do not").

It calls the reference once per such input, and the student's function once for all of them (one
request); it says nothing of its own -- the value families say it, of the weights.
"""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations.family import Cost, Family, Part, Whole
from gradekit.graders.relations.values import close
from gradekit.i18n.text import phrase

WEIGHTS = phrase("the weights the rows of {name} are mixed with", zh="{name} 的各行被混合时所用的权重")
LARGEST = 64  # rows of an input the weights are found for (an identity of that size goes in)


class Mixing(Family):
    name = "mixing"
    rank = 135
    cost = Cost(reference=3, student=3)

    def search_call(self, whole: Whole) -> None:
        # not asked through whole.wants: its relations are the value families', found again on each check
        if whole.call.student is None:
            return
        linear = []
        for key, A in whole.inputs.arrays.items():
            if A.ndim != 2 or not 2 <= A.shape[0] <= LARGEST or not np.all(np.isfinite(A)):
                continue
            if whole.left(self) <= 0:
                break
            eye = np.eye(A.shape[0])
            right = whole.reference(self, whole.inputs.args_with(**{key: eye}))
            if right is not None and all(_mixes(right[i], A, whole.expected[i], whole.tol) for i in whole.failed):
                linear.append((key, A, eye, right))
        if not linear:
            return
        again = whole.student(self, [whole.inputs.args_with(**{key: eye}) for key, _A, eye, _r in linear])
        from gradekit.graders.relations.engine import families

        values = [f for f in families() if not f.cost.calls and not f.beside]
        for (key, A, _eye, right), theirs in zip(linear, again, strict=False):
            if theirs is None:
                continue
            for i in whole.failed:
                W, R = theirs[i], right[i]
                if W.shape != R.shape or not _mixes(W, A, whole.got[i], whole.tol) or close(W, R, whole.tol):
                    continue  # not mixed so (or mixed rightly, and wrong elsewhere)
                subject = f"{whole.subjects[i]}~{key}"
                whole.evidence.labels[subject] = WEIGHTS.format(name=key)
                part = Part(subject, W, R, whole.inputs, whole.tol, whole.evidence)
                for family in values:
                    family.search(part)


def _mixes(W: np.ndarray, A: np.ndarray, value: np.ndarray, tol) -> bool:
    """Whether ``value`` is ``W`` applied to the rows of ``A`` (W of shape (..., n), A (n, d))."""
    if W.ndim < 1 or W.shape[-1] != A.shape[0]:
        return False
    with np.errstate(all="ignore"):
        mixed = W @ A
    return mixed.shape == value.shape and close(mixed, value, tol)


FAMILY = Mixing()
