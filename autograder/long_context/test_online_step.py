"""Hidden tests for the cell `test_online_step`: online_step(m, l, acc, s, v).

Every state handed to the student's function is a real one: the reference's
state after some first keys of a score table. The blocks make the running
maximum grow in every row, in no row, and in some rows only, so that each
rescaling mistake gives values of its own.
"""

import numpy as np

from gradekit.graders import check
from gradekit.i18n import _

TOL = dict(rtol=1e-6, atol=1e-9)
NO_RESCALE = _("forgot to rescale l and acc by exp(m - m_new) when the maximum changes")
ONLY_L = _("rescaled the denominator l but not the accumulator acc: both sums were taken against the old maximum")
ONLY_ACC = _("rescaled the accumulator acc but not the denominator l: both sums were taken against the old maximum")
INVERTED = _("rescaled by exp(m_new - m) instead of exp(m - m_new): the factor should be at most 1")
OLD_MAX = _("took the block's exponentials against the old maximum, not the new one")
BLOCK_MAX = _("the new maximum should be the larger of the old one and the block's")
PARTS = (_("the new m"), _("the new l"), _("the new acc"))


def _mistakes(reference, state, s, v):
    variant = lambda **how: list(reference.online_step_variant(*state, s, v, **how))
    return {
        NO_RESCALE: variant(rescale_l=False, rescale_acc=False),
        ONLY_L: variant(rescale_acc=False),
        ONLY_ACC: variant(rescale_l=False),
        INVERTED: variant(inverted=True),
        OLD_MAX: variant(old_max_in_p=True),
        BLOCK_MAX: variant(block_max=True),
    }


def _check(student, reference, scores, values, upto, block, what):
    """The student's step over keys upto … upto + block - 1, from the reference's state after the first upto keys."""
    state = reference.state_after(scores, values, upto)
    s, v = scores[:, upto:upto + block], values[upto:upto + block]
    got = student.online_step(*state, s, v)
    assert isinstance(got, (tuple, list)) and len(got) == 3, \
        _("online_step on {what}: should return the three values (m, l, acc)").format(what=what)
    check.arrays(list(got), list(reference.online_step(*state, s, v)),
                 what=[_("{part} from online_step on {what}").format(part=p, what=what) for p in PARTS], **TOL,
                 mistakes=lambda: _mistakes(reference, state, s, v),
                 call=check.Call(student.online_step, reference.online_step,
                                 dict(m=state[0], l=state[1], acc=state[2], s=s, v=v), returns=PARTS))


def _table(rng, n_q, n_k, d_v):
    return rng.normal(scale=1.5, size=(n_q, n_k)), rng.normal(size=(n_k, d_v))


def test_first_block(student, reference, rng):
    """the first block, from the empty state (m = -inf, l = 0, acc = 0)"""
    s, v = _table(rng, 4, 3, 2)
    _check(student, reference, s, v, 0, 3, _("the first block of 3 keys"))


def test_max_grows_everywhere(student, reference, rng):
    """a block whose scores beat the running maximum in every row"""
    s, v = _table(rng, 5, 7, 3)
    s[:, 4:] += 3.0
    _check(student, reference, s, v, 4, 3, _("a block that raises every row's maximum"))


def test_max_stays(student, reference, rng):
    """a block whose scores stay below the running maximum"""
    s, v = _table(rng, 5, 6, 2)
    s[:, 3:] -= 4.0
    _check(student, reference, s, v, 3, 3, _("a block below every row's maximum"))


def test_max_grows_in_some_rows(student, reference, rng):
    """a block that raises the maximum in some rows and not in others"""
    s, v = _table(rng, 6, 8, 3)
    s[::2, 5:] += 3.0
    s[1::2, 5:] -= 3.0
    _check(student, reference, s, v, 5, 3, _("a block that raises the maximum of every other row"))


def test_one_key_one_query(student, reference, rng):
    """a block of one key, and a single query"""
    s, v = _table(rng, 3, 5, 2)
    s[:, 4] += 2.0
    _check(student, reference, s, v, 4, 1, _("a block of one key"))
    s, v = _table(rng, 1, 6, 4)
    s[0, 2:] += 2.0
    _check(student, reference, s, v, 2, 4, _("one query and a block of 4 keys"))


def test_large_scores(student, reference, rng):
    """scores near 1000: nothing may overflow"""
    s, v = _table(rng, 4, 6, 2)
    s += 1000.0
    s[:2, 3:] += 2.0
    _check(student, reference, s, v, 3, 3, _("scores near 1000"))


def test_your_blocks(student, reference, params):
    """every block of your own Q, K, V, in turn"""
    Q, K, V = (np.array(params[k]) for k in ("Q", "K", "V"))
    scores, block = reference.scaled_dot(Q, K), params["block"]
    for upto in range(0, len(K), block):
        _check(student, reference, scores, V, upto, block,
               _("your keys {first} to {last}").format(first=upto, last=min(upto + block, len(K)) - 1))
