"""gradekit.grading.lines: the checks that only differ in value, as one line."""

from __future__ import annotations

from gradekit.grading.lines import Differing, grouped
from gradekit.results import Check


def _bare(name: str, size: int = 4, tolerance=(1e-5, 1e-6)) -> Check:
    return Check(name, False, f"{name}: {size} of {size} values differ", differs=[[f"f on {name}", size, size]],
                 tolerance=list(tolerance))


def test_two_or_more_bare_checks_are_one_line_at_the_first_ones_place():
    checks = [Check("first", True), _bare("a"), Check("shape", False, "shape (2,), expected shape (3,)"),
              _bare("b", 6), _bare("c", tolerance=(1e-3, 1e-6))]
    items = grouped(checks)
    assert [type(i).__name__ for i in items] == ["Check", "Differing", "Check", "Check"]
    group = items[1]
    assert isinstance(group, Differing) and [c.name for c in group.checks] == ["a", "b"]
    assert str(group.summary()) == "2 checks: values differ from the reference (tolerance rtol=1e-05, atol=1e-06):"
    assert group.cases() == ["f on a (4 of 4 values)", "f on b (6 of 6 values)"]
    assert items[3].name == "c"                             # another tolerance: on its own


def test_a_long_list_is_cut_short():
    group = grouped([_bare(str(i)) for i in range(8)])[0]
    assert isinstance(group, Differing) and group.cases()[-1] == "and 3 more" and len(group.cases()) == 6


def test_the_graded_notebook_says_them_in_one_line_too():
    """The Annotate stage writes a test cell's checks into its output: the bare ones as one line."""
    import nbformat

    from gradekit.grading.stages import Annotate, NotebookJob
    from gradekit.results import CellResult, NotebookResult, Relation

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("assert True")
    cell.metadata["nbgrader"] = {"grade_id": "test_f", "grade": True, "solution": False, "locked": True,
                                 "points": 2}
    nb.cells.append(cell)
    relation = Relation("", "function", ["log"], {}, 3, 3, 3)
    result = NotebookResult("nb", [CellResult("test_f", 2, 0.0, [_bare("a"), _bare("b"), _bare("c")],
                                              relations=[relation])])
    job = NotebookJob("nb", nb, None, None, result, graded=nb)  # type: ignore[arg-type]
    Annotate(None)(job)  # type: ignore[arg-type]
    text = nb.cells[0].outputs[0]["text"]
    assert "Your values are the logarithms of the right ones (on all 3 failed checks)." in text
    assert text.count("values differ") == 1 and "      - f on c (4 of 4 values)" in text, text
