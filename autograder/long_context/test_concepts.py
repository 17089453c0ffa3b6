"""Concept checks: why long context is costly, and what each way around n² gives up.

Graded by the content of the chosen option, never by its letter.
"""

import pytest

from gradekit.graders import check
from gradekit.i18n import N_

# each item's variable, and what the feedback calls it (the check's name: "concept check: {topic}")
TOPICS = {
    "mc_cost": N_("why a long context is costly"),
    "mc_flash": N_("what FlashAttention trades"),
    "mc_sparse": N_("what sparse attention gives up"),
    "mc_linear": N_("what makes linear attention linear"),
    "mc_window": N_("the cost of a sliding window"),
}
IDS = list(TOPICS)


@pytest.mark.parametrize(("qid", "topic"), TOPICS.items(), ids=IDS)
def test_concept(student, params, qid, topic):
    """concept check: {topic}"""
    item = next(q for q in params["mc"] if q["id"] == qid)
    check.option(student[qid], item, what=qid)
