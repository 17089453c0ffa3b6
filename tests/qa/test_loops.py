"""gradekit.qa.loops: gradekit check warns of a test that compares several cases in one loop."""

from __future__ import annotations

from gradekit.qa.loops import loop_rows

LOOPING = '''
import pytest
from gradekit.graders import check

SHAPES = [(1, 6), (3, 5)]


def _check(student, reference, x):
    check.array(student.f(x), reference.f(x), what="f")


def test_other_shapes(student, reference, rng):
    """other shapes"""
    for shape in SHAPES:
        _check(student, reference, rng.normal(size=shape))


@pytest.mark.parametrize("shape", SHAPES)
def test_one_shape(student, reference, rng, shape):
    _check(student, reference, rng.normal(size=shape))


def test_builds_then_checks(student, reference):
    xs = []
    for k in range(3):
        xs.append(k)
    check.array(student.f(xs), reference.f(xs), what="f")
'''


def test_a_loop_of_comparisons_is_one_warning_with_its_parametrized_form(tmp_path):
    graders = tmp_path / "autograder" / "week1"
    graders.mkdir(parents=True)
    (graders / "test_f.py").write_text(LOOPING)
    (row,) = loop_rows(graders, tmp_path)  # the parametrized test and the loop that compares nothing pass
    assert row.warn and row.ok is None
    assert row.check == "autograder/week1/test_f.py::test_other_shapes: cases in one loop"
    assert "line 14 compares several cases in one loop" in row.detail
    assert '@pytest.mark.parametrize("shape", SHAPES) def test_other_shapes(student, reference, rng, shape)' in row.detail
