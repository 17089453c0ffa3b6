"""gradekit.graders.relations.independent: the student's value does not change with an input."""

import numpy as np

from relation_cases import case, qk, said, scores


class Mapped:
    """A student's function that maps (as ``student.f`` does), counting its requests."""

    __name__ = "scores"

    def __init__(self, function):
        self.function, self.requests = function, 0

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)

    def map(self, calls):
        self.requests += 1
        return [self.function(*c.args, **c.kwargs) for c in calls]


def test_keys_compared_with_themselves_in_a_request_per_family_and_check():
    student = Mapped(lambda Q, K: K @ K.T)
    inputs = qk((4, 4, 3), (5, 5, 2), (3, 3, 4))
    checks = [case(student, scores, one) for one in inputs]
    text = said(checks)
    assert "K in place of Q" in text or "did not change when the grader changed Q" in text, text
    assert "changed K" not in text
    # one request of each family that calls the student's function (mixing, probed, independent)
    assert student.requests <= 3 * len(inputs)


def test_an_input_the_right_answer_ignores_is_not_said():
    def right(Q, K):
        return Q @ Q.T

    student = Mapped(lambda Q, K: 2 * Q @ Q.T + np.eye(len(Q)))
    text = said([case(student, right, one) for one in qk((4, 4, 3), (5, 5, 2))])
    assert "changed K" not in text
