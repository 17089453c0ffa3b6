"""Concept checks: why long context is costly, and what each way around n² gives up.

Graded by the content of the chosen option, never by its letter.
"""

import pytest

from gradekit.graders import check

IDS = ["mc_cost", "mc_flash", "mc_sparse", "mc_linear", "mc_window"]


@pytest.mark.parametrize("qid", IDS)
def test_concept(student, params, qid):
    """concept check"""
    item = next(q for q in params["mc"] if q["id"] == qid)
    check.option(student[qid], item, what=qid)
