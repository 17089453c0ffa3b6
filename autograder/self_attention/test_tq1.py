"""Question 1: the hand example with W_q = W_k = I and W_v = c·I, with the student's x1, x2 and c."""

import numpy as np
import pytest

from gradekit.graders import check
from gradekit.i18n import _

TOL = 0.005  # the question accepts answers within ±0.005 (the lecture rounds to three decimals)
LECTURE_WEIGHTS = [0.670, 0.330]
LECTURE_OUTPUT = [1.340, 0.660]


def _softmax(s):
    e = np.exp(s - np.max(s))
    return e / e.sum()


def _routes(params):
    X = np.array([params["q1_x1"], params["q1_x2"]])
    c = params["q1_c"]
    raw = X[0] @ X.T
    right = _softmax(raw / np.sqrt(2))
    weights = {
        _("weights from the lecture's numbers, not yours"): LECTURE_WEIGHTS,
        _("forgot the √d_k: the scores must be divided by √2 before the softmax"): _softmax(raw),
        _("divided by d_k = 2 instead of √d_k"): _softmax(raw / 2),
        _("these are position 2's weights; position 1's query is x1"): _softmax(X[1] @ X.T / np.sqrt(2)),
        _("the raw scaled scores, before the softmax"): raw / np.sqrt(2),
        _("equal weights: the softmax of the scores is not uniform"): [0.5, 0.5],
    }
    return X, c, right, weights


def test_weights(student, params):
    """position 1's two attention weights"""
    X, c, right, mistakes = _routes(params)
    check.array(student["tq1_weights"], right, what="tq1_weights", rtol=0, atol=TOL, mistakes=mistakes)


def test_output(student, params):
    """position 1's output vector"""
    X, c, right, weights = _routes(params)
    mistakes = {
        _("the lecture's output, not yours"): LECTURE_OUTPUT,
        _("used W_v = 2·I from the lecture instead of your c"): 2 * (right @ X),
        _("forgot W_v: the output mixes the value vectors c·x_j, not the inputs"): right @ X,
        _("forgot the √d_k in the weights"): c * (weights["forgot the √d_k: the scores must be divided by √2 before the softmax"] @ X),
        _("divided the scores by d_k instead of √d_k"): c * (weights["divided by d_k = 2 instead of √d_k"] @ X),
        _("this is position 2's output"): c * (_softmax(X[1] @ X.T / np.sqrt(2)) @ X),
    }
    check.array(student["tq1_output"], c * (right @ X), what="tq1_output", rtol=0, atol=TOL, mistakes=mistakes)


@pytest.mark.weight(0.25)  # the same answer for every student: a copied key must not earn much with it
def test_weights_do_not_depend_on_v(student):
    """whether W_v changes the weights"""
    check.choice(student["tq1_weights_change"], False, what="tq1_weights_change",
                 asked=_("would the weights change with W_v = 2·I?"),
                 mistakes={_("W_v only enters the output: the weights come from Q and K alone"): True})
