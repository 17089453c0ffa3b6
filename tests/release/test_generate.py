"""gradekit.release.generate: what students receive, the answer key, the gradebook registration."""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from nbgrader.utils import compute_checksum

from conftest import (ASSIGNMENT, NOTEBOOK, REPO, STUDENTS, grade_id, is_solution, is_test, nbgrader_meta,
                      exercise_tests)

GRADE_KEYS = ("grade_id", "grade", "solution", "locked", "points")


def _solution_lines() -> set[str]:
    """Lines of the source's solution regions that appear nowhere else in the source."""
    nb = json.loads((REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())
    inside, outside = set(), set()
    for cell in nb["cells"]:
        region = False
        for line in "".join(cell["source"]).splitlines():
            stripped = line.strip()
            if "### BEGIN SOLUTION" in line:
                region = True
                continue
            if "### END SOLUTION" in line:
                region = False
                continue
            (inside if region else outside).add(stripped)
    return {line for line in inside - outside if len(line) > 12}


def _text(nb) -> str:
    return "\n".join(cell.source for cell in nb.cells)


@pytest.fixture(scope="module")
def released(shared_course):
    return {s: shared_course.release(s) for s in STUDENTS[:3]}


def test_release_files(shared_course):
    for student in STUDENTS:
        folder = shared_course.root / "release" / student / ASSIGNMENT
        assert sorted(p.name for p in folder.iterdir()) == [f"{NOTEBOOK}.ipynb"]


def test_release_has_no_solution_code(released):
    lines = _solution_lines()
    assert len(lines) > 20  # the check means something
    for student, nb in released.items():
        text = _text(nb)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        leaked = sorted(line for line in lines if line in text)
        assert not leaked, f"{student}: solution lines in the release: {leaked[:5]}"
        raw = nbformat.writes(nb)
        assert "keepdims=True)\\n    e = np.exp(shifted)" not in raw


def test_release_solution_cells_are_stubs(released):
    for nb in released.values():
        solutions = [c for c in nb.cells if is_solution(c)]
        assert len(solutions) == 6
        for cell in solutions:
            assert "NotImplementedError" in cell.source or "YOUR CODE HERE" in cell.source, cell.source


def test_release_has_no_outputs(released):
    for nb in released.values():
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None


def test_release_cells_have_checksums(released):
    for nb in released.values():
        graded = [c for c in nb.cells if nbgrader_meta(c)]
        assert graded
        for cell in graded:
            meta = nbgrader_meta(cell)
            assert meta.get("checksum") == compute_checksum(cell), grade_id(cell)


def test_release_cells_are_locked(released):
    for nb in released.values():
        for cell in nb.cells:
            meta = nbgrader_meta(cell)
            assert meta, "every cell of the source is an nbgrader cell"
            if is_solution(cell):
                assert not meta.get("locked")
                continue
            assert meta.get("locked") is True, grade_id(cell)
            assert cell.metadata.get("editable") is False and cell.metadata.get("deletable") is False


def test_release_test_cells_and_points(released):
    for nb in released.values():
        tests = {grade_id(c): nbgrader_meta(c)["points"] for c in nb.cells if is_test(c)}
        assert len(tests) == 9
        assert sum(tests.values()) == 20
        assert exercise_tests(nb) == {
            "project_qkv": ["test_project_qkv"],
            "scaled_scores": ["test_scaled_scores"],
            "softmax": ["test_softmax", "test_softmax_stability"],
            "weighted_sum": ["test_weighted_sum"],
            "self_attention": ["test_self_attention", "test_self_attention_permutation"],
            "kv_cache": ["test_kv_cache", "test_kv_cache_decode"],
        }


def test_release_is_personal(released):
    a, b = released[STUDENTS[0]], released[STUDENTS[1]]
    assert [grade_id(c) for c in a.cells] == [grade_id(c) for c in b.cells]
    setup_a = next(c for c in a.cells if grade_id(c) == "setup").source
    setup_b = next(c for c in b.cells if grade_id(c) == "setup").source
    assert setup_a != setup_b
    assert "{{" not in _text(a)


def test_release_contains_no_grader_or_reference_files(shared_course):
    release = shared_course.root / "release"
    names = {p.name for p in release.rglob("*")}
    assert not any(n.endswith(".py") for n in names)
    text = "".join(p.read_text() for p in release.rglob("*.ipynb"))
    assert "from gradekit.graders import check" not in text
    assert "causal_self_attention" not in text


def test_hidden_tests_are_stripped(course):
    """A test cell's ### BEGIN HIDDEN TESTS region never reaches the student."""
    path = course.root / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    cell = next(c for c in nb.cells if grade_id(c) == "test_softmax")
    cell.source += "\n### BEGIN HIDDEN TESTS\nassert softmax(np.zeros(3))[0] == 1 / 3  # hidden-marker\n### END HIDDEN TESTS\n"
    nbformat.write(nb, str(path))
    course.generate("alice")
    release = course.release("alice")
    text = _text(release)
    assert "hidden-marker" not in text and "HIDDEN TESTS" not in text
    released_cell = next(c for c in release.cells if grade_id(c) == "test_softmax")
    assert "visible checks passed" in released_cell.source
    assert nbgrader_meta(released_cell)["checksum"] == compute_checksum(released_cell)
    # the answer key does not show them either
    assert "hidden-marker" not in _text(course.answer_key("alice"))


@pytest.mark.parametrize("student", STUDENTS[:3])
def test_answer_key_lines_up_with_release(shared_course, student):
    release, key = shared_course.release(student), shared_course.answer_key(student)
    assert len(key.cells) == len(release.cells)
    for r, k in zip(release.cells, key.cells):
        assert r.cell_type == k.cell_type
        assert r.get("id") == k.get("id")
        mr, mk = nbgrader_meta(r), nbgrader_meta(k)
        assert {x: mr.get(x) for x in GRADE_KEYS} == {x: mk.get(x) for x in GRADE_KEYS}
        assert r.metadata.get("editable") == k.metadata.get("editable")
        if not is_solution(r):
            assert r.source == k.source, grade_id(r)


@pytest.mark.parametrize("student", STUDENTS[:3])
def test_answer_key_has_the_solutions(shared_course, student):
    key = shared_course.answer_key(student)
    text = _text(key)
    assert "NotImplementedError" not in text and "YOUR CODE HERE" not in text
    # no markers: in a free-text cell formgrader would show "### BEGIN SOLUTION" as a heading
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
    for line in ("return Q @ K.T / np.sqrt(d_k)", "shifted = x - np.max(x, axis=axis, keepdims=True)"):
        assert line in text
    # the key is the student's variant: same setup cell as their release
    assert next(c for c in key.cells if grade_id(c) == "setup").source == \
        next(c for c in shared_course.release(student).cells if grade_id(c) == "setup").source


def test_answer_key_runs(shared_course):
    """The key's code cells, visible tests included, run without error in plain Python, and every
    function its solution cells define is there to call."""
    import ast

    key = shared_course.answer_key(STUDENTS[0])
    ns: dict = {}
    tests = 0
    for cell in key.cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, grade_id(cell) or "cell", "exec"), ns)
            tests += is_test(cell)
    defined = {node.name for cell in key.cells if cell.cell_type == "code" and is_solution(cell)
               for node in ast.parse(cell.source).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert tests >= 6 and len(defined) >= 6, (tests, defined)   # six exercises, each with its visible checks
    assert all(callable(ns[name]) for name in defined)
    assert "NotImplementedError" not in "".join(c.source for c in key.cells if is_solution(c))


def test_assignment_registered_in_gradebook(shared_course):
    release = shared_course.release(STUDENTS[0])
    expected = {grade_id(c): float(nbgrader_meta(c)["points"]) for c in release.cells if is_test(c)}
    with shared_course.gradebook() as gb:
        assignment = gb.find_assignment(ASSIGNMENT)
        assert [n.name for n in assignment.notebooks] == [NOTEBOOK]
        notebook = gb.find_notebook(NOTEBOOK, ASSIGNMENT)
        cells = {c.name: c.max_score for c in notebook.grade_cells}
        assert cells == expected
        assert assignment.max_score == 20
        solutions = {c.name for c in notebook.solution_cells}
        assert solutions == {"project_qkv", "scaled_scores", "softmax", "weighted_sum", "self_attention",
                             "kv_cache"}
        # source cells (locked ones) are registered with their released checksum
        setup = gb.find_source_cell("setup", NOTEBOOK, ASSIGNMENT)
        assert setup.locked


def test_generate_twice_keeps_one_assignment(course):
    course.generate()
    course.generate()
    with course.gradebook() as gb:
        assert [a.name for a in gb.assignments] == [ASSIGNMENT]
        assert len(gb.find_notebook(NOTEBOOK, ASSIGNMENT).grade_cells) == 9


def test_generate_only_named_students(course):
    course.generate("bob")
    assert course.release_path("bob").exists()
    assert not course.release_path("alice").exists()


def test_release_notebook_is_valid(released):
    for nb in released.values():
        nbformat.validate(nb)
        assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", c.get("id", "")) for c in nb.cells)  # nbformat 4.5 cell ids
