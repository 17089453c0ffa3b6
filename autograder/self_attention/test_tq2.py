"""Question 2: how the dot product's spread grows with d_k."""

import math

from gradekit.graders import check
from gradekit.i18n import _

RTOL = 0.01


def test_factor(student, params):
    """growth factor of the standard deviation of q·k"""
    a, b = params["q2_a"], params["q2_b"]
    check.scalar(student["tq2_factor"], math.sqrt(b / a), what="tq2_factor", rtol=RTOL, atol=0, mistakes={
        _("that is the growth of the variance; the standard deviation grows with its square root"): b / a,
        _("the spread does not stay the same: the variance of q·k grows with d_k"): 1.0,
        _("that is the standard deviation at the new d_k, not the factor by which it grew"): math.sqrt(b),
        _("gave how much it grew by (the factor minus 1); the question asks for the factor, new ÷ old"):
            math.sqrt(b / a) - 1,
    })


def test_variance(student, params):
    """variance of q·k at the new d_k"""
    b = params["q2_b"]
    check.scalar(student["tq2_variance"], b, what="tq2_variance", rtol=RTOL, atol=0, mistakes={
        _("that is the standard deviation; the variance is d_k"): math.sqrt(b),
        _("that is the variance after dividing by √d_k; before scaling it is d_k"): 1.0,
        _("the variance of a sum of d_k independent products is d_k, not d_k²"): b * b,
    })
