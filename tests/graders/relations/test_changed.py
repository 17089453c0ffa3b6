"""gradekit.graders.relations.changed: the right function on changed inputs."""

import numpy as np

from relation_cases import RNG, cases, qk, said, scores, softmax, tables


def test_an_input_negated_and_rows_to_unit_length():
    text = said(cases(lambda x, axis=-1: softmax(-x, axis), softmax, tables((3, 4), (5, 6), (2, 7))))
    assert "what the right function gives for -x" in text, text
    unit = lambda a: a / np.linalg.norm(a, axis=1, keepdims=True)  # noqa: E731
    text = said(cases(lambda Q, K: scores(unit(Q), unit(K)), scores, qk((4, 5, 3), (6, 6, 2), (3, 2, 4))))
    assert "Q and K with each row scaled to length 1" in text, text


def test_a_loop_one_short():
    def weighted(w, V):
        return w @ V

    def short(w, V):
        return w[:, :-1] @ V[:-1]

    inputs = [dict(w=RNG.uniform(size=(a, b)), V=RNG.normal(size=(b, c))) for a, b, c in ((3, 5, 2), (4, 6, 3))]
    text = said(cases(short, weighted, inputs))
    assert "what the right function gives for w[:, :-1] and V[:-1]" in text, text


def test_rows_standardised():
    def project(X, W):
        return X @ W

    def layernorm_first(X, W):
        return ((X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)) @ W

    inputs = [dict(X=RNG.normal(size=(n, d)), W=RNG.normal(size=(d, 2))) for n, d in ((4, 3), (5, 4), (3, 5))]
    text = said(cases(layernorm_first, project, inputs))
    assert "X with each row centred and scaled to standard deviation 1" in text, text


def test_an_input_replaced_by_zeros():
    def attend(Q, K, V):
        return softmax(scores(Q, K)) @ V

    def mean_of_values(Q, K, V):  # every key weighs the same
        return np.tile(V.mean(axis=0), (len(Q), 1))

    inputs = [dict(Q=RNG.normal(size=(a, 3)), K=RNG.normal(size=(b, 3)), V=RNG.normal(size=(b, 2)))
              for a, b in ((3, 5), (4, 6), (2, 7))]
    text = said(cases(mean_of_values, attend, inputs))
    assert "what the right function gives for Q replaced by zeros" in text, text


def test_the_keys_cut_and_not_the_queries_of_the_same_length():
    def attend(Q, K, V):
        return softmax(scores(Q, K)) @ V

    inputs = [dict(Q=RNG.normal(size=(n, 3)), K=RNG.normal(size=(n, 3)), V=RNG.normal(size=(n, 2))) for n in (4, 5, 6)]
    text = said(cases(lambda Q, K, V: attend(Q, K[1:], V[1:]), attend, inputs))
    assert "what the right function gives for K[1:] and V[1:]" in text, text
