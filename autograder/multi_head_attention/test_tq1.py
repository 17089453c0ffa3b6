"""Question 1: the parameter count of a multi-head layer."""

from gradekit.graders import check
from gradekit.i18n import _

RTOL = 0.01


def distinct(right, routes):
    """The routes whose values differ from the right answer and from each other (first one wins)."""
    out, seen = {}, [right]
    for name, value in routes.items():
        if all(abs(value - v) > RTOL * abs(v) for v in seen):
            out[name] = value
            seen.append(value)
    return out


def test_layer_params(student, params):
    """weights of W_q, W_k, W_v and W_o"""
    d, h = params["tq1_d_model"], params["tq1_heads"]
    right = 4 * d * d
    check.scalar(student["tq1_params"], right, what="tq1_params", rtol=RTOL, atol=0, mistakes=distinct(right, {
        _("forgot the output projection W_o: the layer has four d_model × d_model matrices, not three"): 3 * d * d,
        _("counted a full set of matrices per head: the heads share W_q, W_k, W_v and W_o, each head owning d_model / n_heads of their columns"): 4 * d * d * h,
        _("divided by the number of heads: the four matrices are d_model × d_model whatever the number of heads"):
            4 * d * d / h,
        _("counted the biases too: the question asks for the weights only"): 4 * d * d + 4 * d,
    }))


def test_head_params(student, params):
    """weights of one head in W_q, W_k, W_v"""
    d, h = params["tq1_d_model"], params["tq1_heads"]
    d_head = d // h
    right = 3 * d * d_head
    check.scalar(student["tq1_head_params"], right, what="tq1_head_params", rtol=RTOL, atol=0,
                 mistakes=distinct(right, {
                     _("that is all heads together: one head owns d_model / n_heads of the columns"): 3 * d * d,
                     _("counted W_o as well: the question asks for W_q, W_k and W_v"): 4 * d * d_head,
                     _("a head's projections take inputs of width d_model, not d_model / n_heads"): 3 * d_head * d_head,
                     _("counted one of the three matrices only"): d * d_head,
                 }))
