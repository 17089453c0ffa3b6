"""gradekit.graders.relations.zeros: not 0 where the right values are 0."""

import numpy as np

from relation_cases import RNG, cases, softmax


def test_a_mask_added_instead_of_applied():
    from relation_cases import said

    def right(s, mask):
        return softmax(np.where(mask, s, -np.inf))

    inputs = [dict(s=RNG.normal(size=(n, n)), mask=np.tril(np.ones((n, n), dtype=bool))) for n in (4, 5, 3)]
    text = said(cases(lambda s, mask: softmax(s + mask), right, inputs))
    assert "where the right values are 0, none of yours is" in text, text
