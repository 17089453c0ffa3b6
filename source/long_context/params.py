"""Per-student numbers for long_context.ipynb.

``generate(rng)`` is a pure function of the seeded generator and returns plain
JSON data (lists, floats, ints): the grader rebuilds a student's variant from
it, and the notebook's cells see every key as a jinja2 variable
(``{{ x | array }}``).
"""

from __future__ import annotations

import numpy as np

M, N = 3, 5  # the shape of the student's x


def _rows(rng: np.random.Generator) -> np.ndarray:
    """Rows with one-decimal values whose standard deviation is clearly not 1.

    With a standard deviation of 1, dividing by the variance would give the
    right answer, and the graders could not tell that mistake apart.
    """
    while True:
        x = np.round(rng.uniform(-5.0, 5.0, size=(M, N)), 1)
        std = x.std(axis=1)
        if np.all(std > 0.5) and np.all(np.abs(std - 1.0) > 0.2):
            return x


def _values(rng: np.random.Generator) -> list[float]:
    """Five one-decimal numbers whose mean, median and sum are far apart."""
    while True:
        values = np.round(rng.uniform(0.5, 9.5, size=5), 1)
        mean, median, total = values.mean(), np.median(values), values.sum()
        if abs(mean - median) > 0.1 and abs(mean - total) > 0.1:
            return [float(v) for v in values]


def generate(rng: np.random.Generator) -> dict:
    x = _rows(rng)
    values = _values(rng)
    return {
        "m": M,
        "n": N,
        "x": x.tolist(),
        "q1_values": values,
        "q1_mean": round(float(np.mean(values)), 3),  # fills the answer key
    }
