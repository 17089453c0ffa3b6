"""Hidden tests for the cell `test_blockwise_score`: blockwise_attention with score functions of the grader's.

Each score function is the grader's own: it runs in the grader's process and
the student's loop calls it back with plain arrays. One scores with a bilinear
form that is not symmetric in queries and keys, one gives every key the same
score, and one counts the keys of every call: the loop must never score more
than ``block`` keys at once (the point of the exercise: O(n) memory for the
scores, not O(n²)).
"""

import numpy as np
import pytest

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-6, atol=1e-9)
IGNORED = _("ignored the score function passed in: the scores should come from score(Q, K_block)")
WHOLE_TABLE = _("scored all the keys at once: the whole n_q × n_k table, not one block at a time")


def _check(student, reference, Q, K, V, block, score, what, extra=None):
    """The student's loop (with the reference's online_step) against full attention with the same score."""
    sb = student.with_reference("online_step")
    got = sb.blockwise_attention(Q, K, V, block, score)
    known = lambda: {**reference.blockwise_routes(Q, K, V, block, score), **(extra() if extra else {})}
    check.array(got, reference.full_attention(Q, K, V, score), what=what, **TOL, mistakes=known,
                call=check.Call(sb.blockwise_attention, reference.blockwise_attention,
                                dict(Q=Q, K=K, V=V, block=block, score=score)))


def _ignored(reference, Q, K, V):
    return lambda: {IGNORED: reference.full_attention(Q, K, V)}


def test_bilinear_score(student, reference, rng):
    """a bilinear score q W kᵀ, not symmetric in q and k"""
    d_k = 3
    W = rng.normal(size=(d_k, d_k))
    score = lambda q, k: np.asarray(q) @ W @ np.asarray(k).T
    Q, K, V = rng.normal(size=(4, d_k)), rng.normal(size=(9, d_k)), rng.normal(size=(9, 2))
    _check(student, reference, Q, K, V, 4, score, _("blockwise_attention with a bilinear score q W kᵀ"),
           extra=_ignored(reference, Q, K, V))


def test_constant_score(student, reference, rng):
    """a score function that gives every key the same score: the output is the mean of the values"""
    score = lambda q, k: np.zeros((len(q), len(k)))
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(7, 2)), rng.normal(size=(7, 3))
    _check(student, reference, Q, K, V, 3, score, _("blockwise_attention with a score that is 0 for every key"),
           extra=_ignored(reference, Q, K, V))


@pytest.mark.weight(2)  # the point of the exercise: half of the cell
def test_one_block_at_a_time(student, reference, rng, params):
    """the score function never receives more than one block of keys"""
    n_k, block = 3 * params["block"] + 1, params["block"]
    Q, K, V = rng.normal(size=(5, 4)), rng.normal(size=(n_k, 4)), rng.normal(size=(n_k, 3))
    received = []

    def counting(q, k):
        received.append(len(k))
        return reference.scaled_dot(q, k)

    got = student.with_reference("online_step").blockwise_attention(Q, K, V, block, counting)
    if not received:
        raise check.Mismatch(_("blockwise_attention never called the score function it was given"), mistake=IGNORED)
    if max(received) > block:
        # named only when a call had every key: more than a block, but not all, is another way of cutting
        raise check.Mismatch(
            _("with blocks of {block} keys, one call of score received {most} keys: the scores of one block at a "
              "time is what keeps their memory O(n)").format(block=block, most=max(received)),
            mistake=WHOLE_TABLE if max(received) == n_k else None)
    check.array(got, reference.full_attention(Q, K, V), what=_("blockwise_attention with a score that counts its keys"),
                rtol=1e-6, atol=1e-9)
