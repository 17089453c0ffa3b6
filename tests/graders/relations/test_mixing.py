"""gradekit.graders.relations.mixing: the weights a function linear in an input mixes its rows with."""

import numpy as np

from gradekit.graders.relations.mixing import FAMILY
from relation_cases import RNG, cases, said, softmax


def attend(Q, K, V):
    return softmax(Q @ K.T / np.sqrt(K.shape[1])) @ V


def _inputs(shapes):
    return [dict(Q=RNG.normal(size=(n, d)), K=RNG.normal(size=(n, d)), V=RNG.normal(size=(n, e))) for n, d, e in shapes]


class Student:
    """The student's function as a grader holds it: callable again by the relation search."""

    def __init__(self, f):
        self.f, self.__name__ = f, "attend"

    def __call__(self, *args, **kwargs):
        return self.f(*args, **kwargs)


def test_the_weights_of_the_values_normalised_down_the_columns():
    columns = Student(lambda Q, K, V: softmax(Q @ K.T / np.sqrt(K.shape[1]), axis=0) @ V)
    text = said(cases(columns, attend, _inputs([(4, 3, 2), (5, 2, 3), (6, 4, 2)])))
    assert "the weights the rows of V are mixed with: each column of your values sums to 1" in text, text


def test_the_weights_where_they_differ():
    def itself_kept_out(Q, K, V):  # "a token need not attend to itself": the diagonal masked, rows renormalised
        s = Q @ K.T / np.sqrt(K.shape[1])
        return softmax(np.where(np.eye(len(s), dtype=bool), -np.inf, s)) @ V

    text = said(cases(Student(itself_kept_out), attend, _inputs([(4, 3, 2), (5, 2, 3), (6, 4, 2)])))
    assert "the weights the rows of V are mixed with: your values are 0 on the diagonal" in text, text


def test_a_function_not_linear_in_an_input_is_left_alone():
    relu = Student(lambda Q, K, V: np.maximum(attend(Q, K, V), 0.1))
    assert "mixed with" not in said(cases(relu, attend, _inputs([(4, 3, 2), (5, 2, 3), (6, 4, 2)])))
    assert FAMILY.cost.student == 3


def test_weights_that_say_what_the_value_says_are_not_said_again():
    def weighted(w, V):
        return w @ V

    def last_row_zero(w, V):
        out = w @ V
        out[-1] = 0
        return out

    inputs = [dict(w=RNG.uniform(size=(n, n)), V=RNG.normal(size=(n, 2))) for n in (3, 4, 5)]
    text = said(cases(Student(last_row_zero), weighted, inputs))
    assert "only in the last row, and are 0 there" in text and "mixed with" not in text, text
