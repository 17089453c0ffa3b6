"""Concept checks: graded by the content of the chosen option, never by its letter."""

import pytest

from gradekit.graders import check

IDS = ["mc_scaling", "mc_weights", "mc_global", "mc_order", "mc_cost", "mc_projections"]


@pytest.mark.parametrize("qid", IDS)
def test_concept(student, params, qid):
    """concept check"""
    item = next(q for q in params["mc"] if q["id"] == qid)
    check.option(student[qid], item, what=qid)
