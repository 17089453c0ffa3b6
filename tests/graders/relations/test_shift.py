"""gradekit.graders.relations.shift: S = R + c."""

from relation_cases import RNG, cases, said


def _inputs(count=3):
    return [dict(v=RNG.normal(size=(4, 3))) for _ in range(count)]


def test_a_constant_added_is_said_with_two_digits():
    assert "plus 0.1 (on all 3 failed checks)" in said(cases(lambda v: v + 0.1, lambda v: v, _inputs()))


def test_a_constant_that_changes_is_said_as_such():
    text = said(cases(lambda v: v + v[0, 0], lambda v: v, _inputs()))
    assert "plus a constant that changes from check to check" in text, text
