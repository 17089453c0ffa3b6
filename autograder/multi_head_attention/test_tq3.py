"""Question 3: many heads against one wide head -- compute, stored weights, and the conclusion."""

import pytest

from gradekit.graders import check
from gradekit.i18n import _

RTOL = 0.01
LETTERS = "ABCD"


@pytest.mark.weight(0.25)  # the same answer (1) for every student: a copied key must not earn much with it
def test_compute_ratio(student, params):
    """multiply-adds of the heads' score tables against one wide head"""
    h = params["tq3_heads"]
    check.scalar(student["tq3_compute_ratio"], 1.0, what="tq3_compute_ratio", rtol=RTOL, atol=0, mistakes={
        _("each head is narrower, but there are n_heads of them: together they do the same work as one wide head"): 1 / h,
        _("a head works on its own d_model / n_heads columns, not on all of d_model"): h,
    })


def test_stored_weights(student, params):
    """attention weights stored by the heads against one wide head"""
    h = params["tq3_heads"]
    check.scalar(student["tq3_tables"], h, what="tq3_tables", rtol=RTOL, atol=0, mistakes={
        _("every head keeps its own n × n table of weights: n_heads tables instead of one"): 1,
        _("the heads store more weights, not fewer: one n × n table per head"): 1 / h,
        _("that is n_heads squared: one n × n table per head"): h * h,
    })


@pytest.mark.weight(0.25)  # a letter: a classmate's is right for a quarter of the class, as a guess is
def test_conclusion(student, params):
    """the sentence that sums it up"""
    options = params["tq3_options"]
    got = student["tq3_choice"]
    if got is None:
        raise check.Mismatch(_("tq3_choice: no answer given"))
    letter = str(got).strip().upper()
    chosen = options[LETTERS.index(letter)] if len(letter) == 1 and letter in LETTERS[:len(options)] \
        else str(got).strip()
    right = next(option for option in options if option not in params["tq3_why"])
    check.choice(chosen, right, what="tq3_choice", mistakes={why: text for text, why in params["tq3_why"].items()})
