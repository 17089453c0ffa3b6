"""gradekit.graders.relations.scaled: a factor (and a constant) of each slice's own."""

import numpy as np

from relation_cases import RNG, cases, qk, said, scores, tables


def right(x):
    return x @ np.ones((x.shape[1], 3)) + x[:, :3]


def test_each_row_times_a_factor_of_its_own():
    text = said(cases(lambda x: right(x) / np.linalg.norm(right(x), axis=1, keepdims=True), right,
                      tables((4, 5), (5, 6), (3, 4))))
    assert "each row of your values is the right row multiplied by a factor of its own" in text, text


def test_each_row_normalised_is_a_factor_and_a_constant_of_its_own():
    def layernorm(x):
        r = right(x)
        return (r - r.mean(axis=1, keepdims=True)) / r.std(axis=1, keepdims=True)

    text = said(cases(layernorm, right, tables((4, 5), (5, 6), (3, 4))))
    assert "multiplied by a factor and shifted by a constant of its own" in text, text


def test_rows_and_columns():
    def cosine(Q, K):
        return scores(Q / np.linalg.norm(Q, axis=1, keepdims=True), K / np.linalg.norm(K, axis=1, keepdims=True))

    checks = cases(lambda Q, K: cosine(Q, K) * 2 * np.sqrt(K.shape[1]) * (1 + RNG.uniform()), scores,
                   qk((4, 5, 3), (5, 6, 2)))
    assert "each row and each column multiplied by a factor of its own" in said(checks)


def test_a_row_made_zero_is_not_a_factor_of_its_own():
    def last_row_zero(x):
        r = right(x).copy()
        r[-1] = 0
        return r

    text = said(cases(last_row_zero, right, tables((4, 5), (5, 6), (3, 4))))
    assert "factor" not in text and "only in the last row, and are 0 there" in text, text
