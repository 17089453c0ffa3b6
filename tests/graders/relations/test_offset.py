"""gradekit.graders.relations.offset: S = R ± an input, or a product of inputs."""

import numpy as np

from relation_cases import RNG, cases, said


def test_an_input_added_back():
    inputs = [dict(X=RNG.normal(size=(n, d)), W=RNG.normal(size=(d, d))) for n, d in ((4, 3), (5, 2), (3, 4))]
    text = said(cases(lambda X, W: X @ W + X, lambda X, W: X @ W, inputs))
    assert "your values minus X are the right ones" in text, text
    text = said(cases(lambda X, W: X @ W - X, lambda X, W: X @ W, inputs))
    assert "your values plus X are the right ones" in text, text


def test_an_input_that_is_zero_is_not_tried():
    inputs = [dict(X=np.zeros((3, 3)), W=RNG.normal(size=(3, 3))) for _ in range(2)]
    assert "minus X" not in said(cases(lambda X, W: X @ W + 1, lambda X, W: X @ W + 0.5, inputs))
