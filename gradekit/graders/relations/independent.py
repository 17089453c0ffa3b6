"""Independence: the student's value does not change when one input changes, though the right one
does (a mask sized from the notebook's own X, keys compared with themselves). The student's function
is called again -- all the changed inputs in one request to the sandbox (``student.f.map``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text, phrase

INDEPENDENT = phrase(
    "your values did not change when the grader changed {name}, and the right ones do",
    zh="评分程序改变了 {name}，你的结果却没有变，而正确结果会变",
)


class Independent(Family):
    name = "independent"
    rank = 160
    cost = Cost(reference=24, student=8)

    def search_call(self, whole: Whole) -> None:
        if whole.call.student is None or not whole.wants(self):
            return
        inputs = whole.inputs
        base = whole.reference(self, inputs.args_with())
        if base is None:
            return
        rng = np.random.default_rng(20261201)
        changes: list[tuple[str, list[Any], list[bool]]] = []  # (input, arguments, the parts that depend on it)
        for key in inputs.names():
            if not whole.wants(self, key):
                continue
            options: list[Any]
            if key in inputs.arrays:
                a = inputs.arrays[key]
                spread = float(np.std(a)) or 1.0
                options = [a + spread * rng.normal(size=a.shape)]
            elif key in inputs.ints:
                n = inputs.ints[key]
                options = [v for v in (n + 1, n - 1, 2 * n) if v >= 1]
            else:
                continue
            for value in options:
                args = inputs.args_with(**{key: value})
                right = whole.reference(self, args)
                if right is None:
                    continue
                depends = [
                    not (r.shape == b.shape and close(r, b, whole.tol)) for r, b in zip(right, base, strict=False)
                ]
                if any(depends):
                    changes.append((key, args, depends))
                    break
        again = whole.student(self, [args for _key, args, _d in changes])
        for (key, _args, depends), parts in zip(changes, again, strict=False):
            if parts is None:
                continue
            for subject, S, S2, E, d in zip(whole.subjects, whole.got, parts, whole.expected, depends, strict=False):
                if d and not close(S, E, whole.tol):
                    self.test_subject(whole, subject, key, S2.shape == S.shape and close(S2, S, whole.tol))

    def test_subject(self, whole: Whole, subject: str, arg: str, holds: bool) -> None:
        whole.evidence.test(f"{subject}|{self.name}|{arg}", holds)

    def sentence(self, arg, relation) -> Text | None:
        return INDEPENDENT.format(name=arg)


FAMILY = Independent()
