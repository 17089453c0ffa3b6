"""Hidden tests for the cell `test_blockwise_attention`: blockwise_attention(Q, K, V, block, scaled_dot).

The reference's online_step stands in for the student's, so that a mistake in
the running softmax is charged once, in `test_online_step`; what is graded here
is the loop: the blocks, the last shorter one, the final division. The score
function passed is the lecture's: the reference's scaled_dot (run in the
grader's process and called back from the student's code), and once the
scaled_dot of the student's own notebook (a student function passed to a
student function: both run in the sandbox).
"""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-6, atol=1e-9)
# (n_q, n_k, d_k, d_v, block), the same for every student
SHAPES = [(4, 7, 3, 2, 3), (5, 5, 2, 3, 2), (3, 9, 4, 2, 4), (6, 6, 3, 3, 1), (3, 5, 2, 2, 8),
          (2, 10, 3, 2, 5), (1, 1, 2, 2, 3), (4, 13, 3, 2, 6)]


def _check(student, reference, Q, K, V, block, score, what, extra=None):
    """The student's loop (with the reference's online_step) against full attention with the same score."""
    sb = student.with_reference("online_step")
    got = sb.blockwise_attention(Q, K, V, block, score)
    known = lambda: {**reference.blockwise_routes(Q, K, V, block, score), **(extra() if extra else {})}
    check.array(got, reference.full_attention(Q, K, V, score), what=what, **TOL, mistakes=known,
                call=check.Call(sb.blockwise_attention, reference.blockwise_attention,
                                dict(Q=Q, K=K, V=V, block=block, score=score)))


def test_your_blocks(student, reference, params):
    """your Q, K, V in blocks of your size"""
    Q, K, V = (np.array(params[k]) for k in ("Q", "K", "V"))
    _check(student, reference, Q, K, V, params["block"], reference.scaled_dot,
             _("blockwise_attention(Q, K, V, {block}, scaled_dot) on your numbers").format(block=params["block"]))


def test_your_score_function(student, reference, rng):
    """your notebook's own scaled_dot, passed to your blockwise_attention"""
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(11, 3)), rng.normal(size=(11, 2))
    sb = student.with_reference("online_step")
    got = sb.blockwise_attention(Q, K, V, 4, student.scaled_dot)      # both run in the sandbox
    check.array(got, reference.full_attention(Q, K, V), what=_("blockwise_attention(Q, K, V, 4, scaled_dot) "
                                                                "with the scaled_dot of your notebook"), **TOL,
                mistakes=lambda: reference.blockwise_routes(Q, K, V, 4, reference.scaled_dot))


def test_shapes(student, reference, rng):
    """other sizes: blocks of one key, blocks longer than the keys, n_q != n_k"""
    for n_q, n_k, d_k, d_v, block in SHAPES:
        Q, K, V = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_k, d_v))
        _check(student, reference, Q, K, V, block, reference.scaled_dot,
               _("blockwise_attention on {n_q} queries, {n_k} keys, blocks of {block}").format(
                            n_q=n_q, n_k=n_k, block=block))


def test_large_scores(student, reference, rng):
    """scores near 1000, the largest in the last block"""
    Q, K, V = rng.normal(size=(3, 3)), rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    Q[:, 0] = K[:, 0] = np.sqrt(1000.0 * np.sqrt(3))
    K[6:, 0] += 0.5
    _check(student, reference, Q, K, V, 3, reference.scaled_dot,
           _("blockwise_attention with scores near 1000, blocks of 3"))
