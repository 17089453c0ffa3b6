"""Hidden tests for the cell `test_q1`: the value of the answer variable q1_mean."""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _


def test_mean(student, params):
    """the mean of your numbers"""
    values = params["q1_values"]
    check.scalar(student["q1_mean"], float(np.mean(values)), what="q1_mean", rtol=0, atol=0.005, mistakes={
        _("that is the sum of the numbers, not their mean"): float(np.sum(values)),
        _("that is the median, not the mean"): float(np.median(values)),
    })
