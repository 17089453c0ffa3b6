"""gradekit.graders.relations.of_input: S = t(an input)."""

import numpy as np

from relation_cases import cases, said, softmax, tables


def test_a_sigmoid_of_the_input_for_its_softmax():
    text = said(cases(lambda x, axis=-1: 1 / (1 + np.exp(-x)), softmax, tables((4, 5), (6, 3))))
    assert "your values are sigmoid(x)" in text, text


def test_the_input_itself_and_its_normalisation():
    text = said(cases(lambda x: x, lambda x: x**3 + 1, tables((4, 5), (3, 3))))
    assert "your values are x itself, unchanged" in text, text
    positive = [dict(x=np.abs(t["x"]) + 0.1) for t in tables((4, 5), (6, 3))]
    text = said(cases(lambda x, axis=-1: x / x.sum(axis=-1, keepdims=True), softmax, positive))
    assert "your values are x divided by its sum along the last axis" in text, text
