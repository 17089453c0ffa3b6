"""Helpers for the families' tests: a student's function and the reference's, checked on several inputs
as a cell's checks are, and what the weighed relations say (in English, or in another language)."""

from __future__ import annotations

import numpy as np

from gradekit.errors import Mismatch
from gradekit.graders import check
from gradekit.grading.relate import relate, sentences
from gradekit.i18n.catalogs import translator
from gradekit.results import Check

RNG = np.random.default_rng(20261203)


def case(student, reference, inputs: dict, *, keywords=None, sizes=None, returns=None, mistakes=None, step=None,
         part=None, rtol=1e-6, atol=1e-8) -> Check:
    """One check of ``student`` against ``reference`` on ``inputs``, as the harness records it."""
    args, kw = list(inputs.values()), keywords or {}
    got, right = student(*args, **kw), reference(*args, **kw)
    if part is not None:
        got, right = got[part], right[part]
    parts = isinstance(right, tuple)
    try:
        check.arrays(list(got) if parts else [got], list(right) if parts else [right],
                     what=[f"part {i}" for i in range(len(right))] if parts else ["the value"],
                     call=check.Call(student, reference, inputs, keywords=kw, sizes=sizes, returns=returns, part=part),
                     mistakes=mistakes, step=step, rtol=rtol, atol=atol)
    except Mismatch as exc:
        return Check("case", False, str(exc), candidates=exc.candidates, ruled_out=exc.ruled_out,
                     evidence=exc.relations)
    return Check("case", True)


def said(checks, language: str = "en") -> str:
    """What the cell's relations say, one sentence after another."""
    translate = translator(None, None, language)
    return " ".join(s.render(translate) for s in sentences(relate(checks)))


def cases(student, reference, inputs: list[dict], **kwargs) -> list[Check]:
    return [case(student, reference, one, **kwargs) for one in inputs]


def tables(*shapes) -> list[dict]:
    """``x`` inputs of these shapes."""
    return [dict(x=RNG.normal(size=shape) * 2) for shape in shapes]


def qk(*shapes) -> list[dict]:
    """Q and K of (n_q, n_k, d_k) each."""
    return [dict(Q=RNG.normal(size=(a, d)), K=RNG.normal(size=(b, d))) for a, b, d in shapes]


def scores(Q, K):
    return Q @ K.T / np.sqrt(K.shape[1])


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sizes_of(inputs: dict) -> dict:
    return dict(n_q=inputs["Q"].shape[0], n_k=inputs["K"].shape[0], d_k=inputs["K"].shape[1])
