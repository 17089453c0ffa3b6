"""Question 5: the quadratic cost of the score table."""

from gradekit.graders import check
from gradekit.i18n import _

RTOL = 0.01


def test_compute_factor(student, params):
    """growth of the score table's compute"""
    k = params["q5_n2"] / params["q5_n1"]
    check.scalar(student["tq5_factor"], k * k, what="tq5_factor", rtol=RTOL, atol=0, mistakes={
        _("used the ratio n₂/n₁ instead of its square: every pair of tokens gets a score"): k,
        _("cubed the ratio: the table has n² scores, each one dot product"): k ** 3,
        _("doubled the ratio: the cost grows with the square, not twice the length"): 2 * k,
        _("gave how much it grew by (the factor minus 1); the question asks for the factor, new ÷ old"): k * k - 1,
    })


def test_fp16_memory(student, params):
    """memory of one FP16 score matrix in MiB"""
    n = params["q5_n"]
    right = 2 * n * n / 2 ** 20
    check.scalar(student["tq5_mib"], right, what="tq5_mib", rtol=RTOL, atol=0, mistakes={
        _("counted 4 bytes per score (FP32); FP16 takes 2"): 2 * right,
        _("counted 1 byte per score; FP16 takes 2"): right / 2,
        _("used 10⁶ bytes per MiB; a MiB is 2²⁰ bytes"): 2 * n * n / 1e6,
        _("forgot the square: the matrix has n × n entries"): 2 * n / 2 ** 20,
        _("gave bytes, not MiB"): 2 * n * n,
        _("gave GiB, not MiB"): right / 1024,
    })
