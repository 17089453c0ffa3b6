"""gradekit.graders.relations.step: right for the first t steps, then wrong."""

from relation_cases import RNG, case, said


def test_steps_said_beside_what_the_values_are():
    checks = [case(lambda v: v + 1.0, lambda v: v, dict(v=RNG.normal(size=3)), step=t) for t in (4, 4)]
    text = said(checks)
    assert "right for the first 4 steps, then wrong" in text and "plus 1" in text, text


def test_a_first_wrong_step_that_changes():
    checks = [case(lambda v: v * 3.0, lambda v: v, dict(v=RNG.normal(size=3)), step=t) for t in (2, 5)]
    assert "the first wrong one: step 3, 6" in said(checks)
