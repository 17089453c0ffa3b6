"""The thought question: the FP16 memory of the n × n score table, the longest context that fits, one block's scores.

MB and GB as the lecture's table counts them (2^20 and 2^30 bytes); answers within 1%.
"""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

RTOL = 0.01
MB, GB = 2 ** 20, 2 ** 30
BITS = _("gave bits, not bytes: FP16 takes 2 bytes a number")
DECIMAL = _("counted 1 MB as 10⁶ bytes (1 GB as 10⁹); the lecture's table counts 2²⁰ (and 2³⁰)")
FP32 = _("counted 4 bytes a number (FP32); FP16 takes 2")
ONE_BYTE = _("counted 1 byte a number; FP16 takes 2")
LINEAR = _("counted n numbers instead of n²: the table has n × n entries, so n grows as the square root of "
           "the memory")
BYTES = _("gave bytes, not MB")
GIB = _("gave GB, not MB")
BLOCK_SQUARED = _("counted a block × block table: every query meets the block's keys, n × block scores")


def distinct(right, routes):
    """The routes whose values differ from the right answer and from each other by more than the tolerance."""
    out, seen = {}, [right]
    for name, value in routes.items():
        if all(abs(value - v) > 2 * RTOL * abs(v) for v in seen):
            out[name] = value
            seen.append(value)
    return out


def test_table(student, params):
    """MB of your n × n table"""
    n = params["tq1_n"]
    right = 2 * n * n / MB
    check.scalar(student["tq1_mb"], right, what="tq1_mb", rtol=RTOL, atol=0, mistakes=distinct(right, {
        LINEAR: 2 * n / MB,
        BITS: right * 8,
        DECIMAL: 2 * n * n / 1e6,
        FP32: right * 2,
        BYTES: right * MB,
        GIB: right / 1024,
    }))


def test_longest_context(student, params):
    """the longest context whose table fits in your GPU's memory"""
    memory = params["tq1_gb"] * GB
    right = float(np.sqrt(memory / 2))
    check.scalar(student["tq1_max_n"], right, what="tq1_max_n", rtol=RTOL, atol=0, mistakes=distinct(right, {
        LINEAR: memory / 2,
        DECIMAL: float(np.sqrt(params["tq1_gb"] * 1e9 / 2)),
        FP32: float(np.sqrt(memory / 4)),
        ONE_BYTE: float(np.sqrt(memory)),
        BITS: float(np.sqrt(memory / 16)),
    }))


def test_one_block(student, params):
    """MB of one block's scores"""
    n, block = params["tq1_n"], params["tq1_block"]
    right = 2 * n * block / MB
    check.scalar(student["tq1_block_mb"], right, what="tq1_block_mb", rtol=RTOL, atol=0, mistakes=distinct(right, {
        BLOCK_SQUARED: 2 * block * block / MB,
        _("that is the whole n × n table: a block holds n × block scores"): 2 * n * n / MB,
        BITS: right * 8,
        DECIMAL: 2 * n * block / 1e6,
        FP32: right * 2,
        BYTES: right * MB,
    }))
