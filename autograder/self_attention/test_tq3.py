"""Question 3: swapping the two tokens swaps the outputs (self-attention works on a set)."""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = 0.005


def _softmax(s):
    e = np.exp(s - np.max(s))
    return e / e.sum()


def test_new_position_one(student, params):
    """the output at the new position 1 after the swap"""
    X = np.array([params["q1_x1"], params["q1_x2"]])
    c = params["q1_c"]
    old_1 = c * (_softmax(X[0] @ X.T / np.sqrt(2)) @ X)
    old_2 = c * (_softmax(X[1] @ X.T / np.sqrt(2)) @ X)
    check.array(student["tq3_output"], old_2, what="tq3_output", rtol=0, atol=TOL, mistakes={
        _("that is the old position 1's output: outputs move with their tokens, so the new position 1 (the old token 2) gets the old position 2's output"): old_1,
        _("the lecture's numbers, not yours"): [0.660, 1.340],
        _("forgot W_v = c·I"): old_2 / c,
    })
