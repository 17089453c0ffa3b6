"""gradekit.graders.relations.precision: close to the right values, not equal."""

import re

import numpy as np

from relation_cases import cases, said, tables


def test_half_precision():
    text = said(cases(lambda x: (x * 3).astype(np.float16).astype(float), lambda x: x * 3, tables((4, 5), (6, 3))))
    # about 3 digits on each check (3–4 where one of them happens to round closer): float16's 11 bits
    assert re.search(r"agree with the right ones to about 3(–4)? significant digits only", text), text


def test_far_off_values_are_not_close():
    assert "significant digits" not in said(cases(lambda x: x * 1.5, lambda x: x, tables((4, 5), (6, 3))))
