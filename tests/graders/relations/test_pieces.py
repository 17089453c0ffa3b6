"""gradekit.graders.relations.pieces: the right function on consecutive pieces of its inputs, combined."""

import numpy as np

from gradekit.graders.relations.pieces import FAMILY
from relation_cases import RNG, cases, said, softmax


def attend(Q, K, V, block):
    """Attention over all the keys (``block`` does not change the right answer)."""
    return softmax(Q @ K.T) @ V


def _inputs(shapes):
    return [dict(Q=RNG.normal(size=(q, 3)), K=RNG.normal(size=(k, 3)), V=RNG.normal(size=(k, 2)), block=b)
            for q, k, b in shapes]


def test_the_mean_of_the_blocks():
    def averaged(Q, K, V, block):
        return np.mean([attend(Q, K[s:s + block], V[s:s + block], block) for s in range(0, len(K), block)], axis=0)

    text = said(cases(averaged, attend, _inputs([(4, 7, 3), (3, 9, 4), (5, 5, 2)])))
    assert "the mean of what the right function gives for each piece of block entries of K and V" in text, text


def test_chunks_put_together_and_the_queries_left_whole():
    def chunked(Q, K, V, block):  # each query attends to its own chunk of block tokens
        return np.vstack([attend(Q[s:s + block], K[s:s + block], V[s:s + block], block)
                          for s in range(0, len(Q), block)])

    inputs = [dict(Q=RNG.normal(size=(n, 3)), K=RNG.normal(size=(n, 3)), V=RNG.normal(size=(n, 2)), block=b)
              for n, b in ((6, 2), (7, 3), (8, 4))]
    text = said(cases(chunked, attend, inputs))
    assert "each piece of block entries of Q, K and V on its own, put together" in text, text

    def first_block(Q, K, V, block):  # the queries are not cut with the keys, though of the same length
        return attend(Q, K[:block], V[:block], block)

    inputs = [dict(Q=RNG.normal(size=(n, 3)), K=RNG.normal(size=(n, 3)), V=RNG.normal(size=(n, 2)), block=b)
              for n, b in ((6, 4), (7, 3), (9, 5))]
    text = said(cases(first_block, attend, inputs))
    assert "the first piece of block entries of K and V alone" in text, text


def test_nothing_is_said_of_an_unrelated_value_and_the_cost_is_kept():
    calls = []

    def reference(Q, K, V, block):
        calls.append(1)
        return attend(Q, K, V, block)

    for one in _inputs([(4, 7, 3), (3, 9, 4)]):
        calls.clear()
        checks = cases(lambda Q, K, V, block: np.tanh(attend(Q, K, V, block)) + 1, reference, [one])
        assert "piece" not in said(checks + checks)
        assert FAMILY.cost.reference and len(calls) <= 1 + sum(f.cost.reference for f in _calling())


def _calling():
    from gradekit.graders.relations.engine import families

    return [f for f in families() if f.cost.calls]
