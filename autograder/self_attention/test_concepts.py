"""Concept checks: graded by the content of the chosen option, never by its letter."""

import pytest

from gradekit.graders import check
from gradekit.i18n import N_

# each item's variable, and what the feedback calls it (the check's name: "concept check: {topic}")
TOPICS = {
    "mc_scaling": N_("why the scores are divided by √d_k"),
    "mc_weights": N_("what a large attention weight tells you"),
    "mc_global": N_("which tokens one layer draws from"),
    "mc_order": N_("shuffled tokens without position encoding"),
    "mc_cost": N_("the cost of the score table"),
    "mc_projections": N_("why three projections"),
}
IDS = list(TOPICS)


@pytest.mark.parametrize(("qid", "topic"), TOPICS.items(), ids=IDS)
def test_concept(student, params, qid, topic):
    """concept check: {topic}"""
    item = next(q for q in params["mc"] if q["id"] == qid)
    check.option(student[qid], item, what=qid)
