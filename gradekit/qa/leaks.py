"""Hidden values in feedback: numbers the reference computed that a student's feedback prints.

While ``gradekit check`` grades, the :class:`LeakScan` stage's observer hears of
every value the reference's functions return (through the ``reference`` fixture:
:class:`gradekit.grading.harness.plugin.RecordingReference`), and the stage, placed
after the default stages, looks for them in what the student is told: each check's
message and the cell's diagnosis and relations, in English and in the student's language. A number
printed with at least three significant digits that equals a reference value
at the printed precision is a leak -- unless it is also one of the student's
own inputs (the params of their variant), which they can see anyway.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from gradekit.grading.diagnosis import notes
from gradekit.grading.stages import NotebookJob, Stage
from gradekit.untrusted import clip

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
MAX_VALUES = 200_000  # reference values kept per notebook; a grader calling it millions of times is sampled


def printed_numbers(text: str) -> list[tuple[float, int]]:
    """(value, decimals) of each non-integer number in ``text`` with 3+ significant digits."""
    out = []
    for match in _NUMBER.finditer(text):
        token = match.group(0)
        if "." not in token and "e" not in token.lower():
            continue  # an integer: a count, a shape, an index
        try:
            value = float(token)
        except ValueError:
            continue
        mantissa = token.lower().split("e")[0].lstrip("+-")
        digits = mantissa.replace(".", "").lstrip("0")
        if len(digits) < 3 or not math.isfinite(value):
            continue
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exponent = int(token.lower().split("e")[1]) if "e" in token.lower() else 0
        out.append((value, decimals - exponent))
    return out


def flatten(values: Iterable[Any], limit: int = MAX_VALUES) -> np.ndarray:
    """Every finite number in ``values`` (arrays, numbers, nested lists and tuples)."""
    parts: list[np.ndarray] = []
    size = 0

    def walk(value: Any) -> None:
        nonlocal size
        if size >= limit:
            return
        if isinstance(value, (list, tuple)):
            if all(isinstance(v, (int, float)) for v in value):
                value = np.asarray(value, dtype=float)
            else:
                for v in value:
                    walk(v)
                return
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
            return
        try:
            arr = np.asarray(value, dtype=float).ravel()
        except (TypeError, ValueError):
            return
        arr = arr[np.isfinite(arr)][: limit - size]
        parts.append(arr)
        size += arr.size

    for value in values:
        walk(value)
    return np.concatenate(parts) if parts else np.zeros(0)


def leaks(texts: Iterable[str], hidden: np.ndarray, visible: np.ndarray) -> list[str]:
    """The printed numbers in ``texts`` that are hidden values (and not visible inputs)."""
    found = []
    for text in texts:
        for value, decimals in printed_numbers(text):
            places = max(decimals, 0)
            tolerance = 0.5 * 10.0 ** (-decimals) + 1e-12 * abs(value)
            if hidden.size and np.any(np.abs(hidden - value) <= tolerance):
                if visible.size and np.any(np.abs(visible - value) <= tolerance):
                    continue
                found.append(f"{value:.{places}f} in {clip(text, 160)!r}")
    return found


class _References:
    """An observer that keeps the values the reference returns (a sample past MAX_VALUES)."""

    def __init__(self) -> None:
        self.values: list = []

    def reference_returned(self, value: Any) -> None:
        if len(self.values) < MAX_VALUES:
            self.values.append(value)


class LeakScan(Stage):
    """gradekit check's stage: hear the reference's values while grading, then look for them in
    the feedback of this notebook (``job.observed["leaks"]``)."""

    after_failure = True

    def observer(self, job: NotebookJob) -> _References:
        self.heard = _References()
        return self.heard

    def __call__(self, job: NotebookJob) -> None:
        texts = [check.message for cell in job.result.cells for check in cell.checks if check.message]
        texts += [text for cell in job.result.cells for text in getattr(cell, "diagnosis", []) or []]
        texts = texts + [job.say.table[t] for t in texts if t in job.say.table]  # and as the student reads them
        view = job.say.view()  # what the values show (the relations), in English and as the student reads it
        texts += [note for cell in job.result.cells for note in notes(cell) + notes(cell, view)]
        job.observed["leaks"] = leaks(texts, flatten(self.heard.values), flatten([job.variant.params]))
