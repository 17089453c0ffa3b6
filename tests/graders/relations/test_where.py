"""gradekit.graders.relations.where: where the values differ, by a simple predicate."""

import numpy as np

from relation_cases import RNG, cases, said, tables


def right(x):
    return np.cumsum(x, axis=1) + 10  # no zero, no negative value


def _said(student, shapes=((5, 4), (6, 6), (4, 7))):
    return said(cases(student, right, tables(*shapes)))


def _with(change):
    def student(x):
        out = right(x).copy()
        change(out)
        return out

    return student


def test_the_last_row_and_one_slice():
    assert "only in the last row, and are 0 there" in _said(_with(lambda r: r.__setitem__(-1, 0)))
    assert "only in the first column (on" in _said(_with(lambda r: r.__setitem__((slice(None), 0), 1.0)))
    stack = [dict(x=RNG.normal(size=(3, n, n))) for n in (3, 4, 5)]
    text = said(cases(lambda x: np.concatenate([right(x[:2]), 0 * x[2:]]), right, stack))
    assert "only in the last slice along axis 0, and are 0 there" in text, text


def test_the_diagonal_and_its_triangles():
    squares = ((5, 5), (6, 6), (4, 4))
    text = _said(lambda x: np.tril(right(x)), squares)
    assert "only above the diagonal (j > i), and are 0 there" in text, text
    text = _said(lambda x: right(x) + np.eye(*x.shape), squares)
    assert "only on the diagonal (on" in text, text
    text = _said(lambda x: np.where(np.arange(x.shape[1])[None, :] <= np.arange(x.shape[0])[:, None] - 3, 0,
                                    right(x)), ((6, 6), (7, 7), (5, 5)))
    assert "only at the entries (i, j) with j ≤ i - 3, and are 0 there" in text, text


def test_no_diagonal_on_a_table_whose_rows_and_columns_count_different_things():
    """A band of queries × features is a coincidence of the sizes: said of square tables only."""
    def lower(x):
        return np.where(np.arange(x.shape[1])[None, :] <= np.arange(x.shape[0])[:, None] - 3, 0, right(x))

    text = _said(lower, ((6, 4), (7, 5), (5, 8)))
    assert "j ≤ i" not in text and "diagonal" not in text, text
    text = _said(lower, ((6, 6), (7, 5), (5, 5)))  # one check not square: the rows and columns are not alike
    assert "j ≤ i" not in text and "diagonal" not in text, text


def test_from_an_index_on_only_when_the_rows_before_it_are_right():
    """Rows 0 and 2 differ: "from index 1 on" would say that row 0 is right."""
    def rows_0_and_2(x):
        out = right(x).copy()
        out[0] += 1.0
        out[2:] = 0
        return out

    text = _said(rows_0_and_2, ((5, 4), (6, 3), (4, 7)))
    assert "from index 1 on" not in text, text


def test_a_band_is_counted_where_it_fails_too():
    """A band that holds on two checks and not on the third is not said "where it was tried"."""
    def band(x):  # on the 7 × 7 table, a band elsewhere
        out = right(x).copy()
        k = np.arange(x.shape[1])[None, :] - np.arange(x.shape[0])[:, None]
        out[((k >= -2) & (k <= -1)) if len(x) < 7 else ((k >= 1) & (k <= 3))] = 0
        return out

    text = said(cases(band, right, tables((5, 5), (6, 6), (7, 7))))
    assert "i - 2 ≤ j ≤ i - 1" not in text, text


def test_where_the_right_values_are_negative():
    text = said(cases(lambda x: np.maximum(x, 0) * 2 + np.minimum(x, 0), lambda x: x * 2, tables((5, 4), (6, 3))))
    assert "only where the right values are negative" in text, text


def test_a_table_of_one_row_says_nothing_about_its_last_row():
    checks = cases(_with(lambda r: r.__setitem__(-1, 0)), right, tables((1, 4), (5, 4), (4, 6)))
    text = said(checks)
    assert "only in the last row" in text and "on the 2 of 3 failed checks where it was tried" in text, text


def test_a_band_a_mask_applied_where_it_should_not_be():
    def band(x):  # the two diagonals above the main one wrong (a causal mask off by two)
        out = right(x).copy()
        k = np.arange(x.shape[1])[None, :] - np.arange(x.shape[0])[:, None]
        out[(k >= 1) & (k <= 2)] = 0
        return out

    assert "with i + 1 ≤ j ≤ i + 2, and are 0 there" in _said(band, ((2, 2), (5, 5), (7, 7)))

    def softmax_rows(s):
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def kept_from_itself(x):
        s = np.where(np.eye(len(x), dtype=bool), -np.inf, x)
        return softmax_rows(s)

    squares = [dict(x=RNG.normal(size=(n, n))) for n in (3, 5, 6)]
    text = said(cases(kept_from_itself, softmax_rows, squares))
    assert "your values are 0 on the diagonal, where the right ones are not" in text, text
