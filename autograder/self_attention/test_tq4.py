"""Question 4: a sequence of one token."""

import numpy as np
import pytest

from gradekit.graders import check
from gradekit.i18n import _

TOL = 0.005


@pytest.mark.weight(0.25)  # the same answer for every student: a copied key must not earn much with it
def test_single_weight(student):
    """the one attention weight"""
    check.scalar(student["tq4_weight"], 1.0, what="tq4_weight", rtol=0, atol=TOL, mistakes={
        _("with one token the softmax has a single entry, so the weight is 1 whatever the score"): 0.0,
    })


def test_output_is_x_times_wv(student, params):
    """the output of a one-token sequence"""
    x = np.array(params["q4_x"])
    W = np.array(params["q4_Wv"])
    check.array(student["tq4_output"], x @ W, what="tq4_output", rtol=0, atol=TOL, mistakes={
        _("summed the rows of W_v: each row must be weighted by the matching entry of x"): W.sum(axis=0),
    })
