"""Reference implementations for long_context.

Every function a solution cell asks for, under the same name: the hidden
graders compare the student's results with these, and
``student.with_reference("name")`` puts one of them in place of the student's
own when another exercise is graded.
"""

from __future__ import annotations

import numpy as np


def standardize(x):
    """Every row of x shifted to mean 0 and scaled to standard deviation 1."""
    x = np.asarray(x, dtype=float)
    return (x - x.mean(axis=-1, keepdims=True)) / x.std(axis=-1, keepdims=True)
