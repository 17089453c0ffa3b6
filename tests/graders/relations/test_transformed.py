"""gradekit.graders.relations.transformed: the right function on t(an input)."""

import numpy as np

from relation_cases import RNG, cases, said


def test_the_right_function_on_tanh_of_an_input():
    def layer(X, W):
        return X @ W

    inputs = [dict(X=RNG.normal(size=(n, d)), W=RNG.normal(size=(d, 3))) for n, d in ((4, 3), (5, 2), (3, 4))]
    text = said(cases(lambda X, W: np.tanh(X) @ W, layer, inputs))
    assert "what the right function gives for tanh(X)" in text, text
    text = said(cases(lambda X, W: np.abs(X) @ W, layer, inputs))
    assert "what the right function gives for |X|" in text, text
    text = said(cases(lambda X, W: np.clip(X, -1, 1) @ W, layer, inputs))
    assert "what the right function gives for clip(X, -1, 1)" in text, text
