"""Concept checks: graded by the content of the chosen option, never by its letter."""

import pytest

from gradekit.graders import check
from gradekit.i18n import _

LETTERS = "ABCD"
IDS = ["mc_scaling", "mc_weights", "mc_global", "mc_order", "mc_cost", "mc_projections"]


@pytest.mark.parametrize("qid", IDS)
def test_concept(student, params, qid):
    """concept check"""
    question = next(q for q in params["mc"] if q["id"] == qid)
    correct = question["options"][LETTERS.index(question["answer"])]
    got = student[qid]
    if got is None:
        raise check.Mismatch(_("{qid}: no answer given").format(qid=qid))
    letter = str(got).strip().upper()
    if letter in LETTERS[:len(question["options"])]:
        chosen = question["options"][LETTERS.index(letter)]
    else:
        chosen = str(got).strip()  # the option's text typed out counts too
    if chosen == correct:
        return
    reason = question["why"].get(chosen)
    if reason is None:
        raise check.Mismatch(_("{qid}: wrong answer -- not one of the options").format(qid=qid))
    raise check.Mismatch(_("{qid}: wrong answer -- {reason}").format(qid=qid, reason=_(reason)), mistake=reason)
