"""gradekit new: a fresh course gets an assignment that grades at once, or a copy of another.

Run as an instructor would, in a course that holds nothing but
nbgrader_config.py and a gradebook: ``gradekit new X``, ``gradekit generate X``,
then ``gradekit autograde X`` on four submissions -- the answer key (full
marks), the untouched release (zero), the skeleton's example mistake (points
lost on its exercise, the mistake named) and its example right answer (full
marks).
"""

from __future__ import annotations

import json
import shutil

import nbformat
import pytest

from conftest import REPO, CourseDir, _empty_gradebook, with_solutions
from gradekit.qa import qaset

NEW = "dot_products"


def _bare_course(root) -> CourseDir:
    root.mkdir(parents=True)
    shutil.copy2(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copy2(_empty_gradebook(), root / "gradebook.db")
    return CourseDir(root)


def _one_line_error(capsys, code: int) -> str:
    assert code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("gradekit: "), err
    assert "Traceback" not in captured.err + captured.out
    return err


def _tree(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = _bare_course(tmp_path_factory.mktemp("scaffold") / "course")
    students = ["key", "blank", "mistake", "right", "sum"]
    course.add_students(*students)
    assert course.cli("new", NEW) == 0
    course.run("gradekit", "generate", NEW)
    graders = course.root / "autograder" / NEW
    question, exercise = qaset.files(graders, "mistakes")  # q1_sum.py, standardize_variance.py
    (right,) = qaset.files(graders, "correct")
    names, _, wrong_code = qaset.parse(exercise)
    _, _, right_code = qaset.parse(right)
    _, _, sum_code = qaset.parse(question)
    codes = {"mistake": wrong_code, "right": right_code, "sum": sum_code}
    for student in students:
        folder = course.root / "submitted" / student / NEW
        if student == "blank":
            folder.mkdir(parents=True)
            shutil.copy2(course.root / "release" / student / NEW / f"{NEW}.ipynb", folder)
            continue
        course.run("gradekit", "answer-key", NEW, "--student", student, "--out", str(folder))
        if student != "key":
            path = folder / f"{NEW}.ipynb"
            nb = nbformat.read(str(path), as_version=4)
            nbformat.write(with_solutions(nb, codes[student]), str(path))
    course.run("gradekit", "autograde", NEW, "--jobs", "2")
    results = {s: json.loads((course.root / "autograded" / s / NEW / "results.json").read_text())
               for s in students}
    return course, results, names


def _cells(result) -> dict:
    (nb,) = result["notebooks"]
    return {c["grade_id"]: c for c in nb["cells"]}


@pytest.mark.e2e
def test_new_writes_the_layout(graded):
    course, _, _ = graded
    assert _tree(course.root / "source" / NEW) == ["assignment.toml", f"{NEW}.ipynb", "params.py"]
    # its settings: every key there, commented out with the course's value; read, they set nothing
    settings = course.course.settings_of(NEW)
    assert settings.file is not None and not settings.set_here
    assert "# hidden_until_due = []" in settings.file.read_text()
    assert settings.visibility().hidden == {"test_q1": "value answers, hidden by default"}
    assert _tree(course.root / "autograder" / NEW) == ["correct/standardize_loops.py",
                                                       "mistakes/q1_sum.py",
                                                       "mistakes/standardize_variance.py",
                                                       "test_q1.py", "test_standardize.py"]
    assert _tree(course.root / "solutions" / NEW) == ["reference.py"]
    text = "".join(p.read_text() for p in course.root.rglob("*.py")) + \
        (course.root / "source" / NEW / f"{NEW}.ipynb").read_text()
    assert "__ASSIGNMENT__" not in text and "__TITLE__" not in text
    nb = nbformat.read(str(course.root / "source" / NEW / f"{NEW}.ipynb"), as_version=4)
    nbformat.validate(nb)
    assert nb.cells[0].source.startswith("# Dot products")
    tests = {c.metadata.nbgrader["grade_id"] for c in nb.cells if c.metadata.nbgrader.get("points")}
    # one hidden grader per test cell, and none without one
    assert {f"{t}.py" for t in tests} == {p.name for p in (course.root / "autograder" / NEW).glob("test_*.py")}


@pytest.mark.e2e
def test_answer_key_gets_full_marks(graded):
    _, results, _ = graded
    result = results["key"]
    assert result["error"] is None
    assert {g: c["score"] for g, c in _cells(result).items()} == {"test_standardize": 2, "test_q1": 1}


@pytest.mark.e2e
def test_untouched_release_gets_zero_without_grader_errors(graded):
    _, results, _ = graded
    cells = _cells(results["blank"])
    assert cells and all(c["score"] == 0 for c in cells.values())
    messages = [k["message"] for c in cells.values() for k in c["checks"]]
    assert messages and not any("could not check" in m for m in messages)
    assert any("not implemented" in m for m in messages)


@pytest.mark.e2e
def test_example_mistake_loses_points_and_is_named(graded):
    _, results, names = graded
    cells = _cells(results["mistake"])
    assert cells["test_q1"]["score"] == 1  # its own exercise only
    assert cells["test_standardize"]["score"] < 2
    failed = [k for k in cells["test_standardize"]["checks"] if not k["passed"]]
    # named once for the cell, weighed over all its failed checks, each of which fits it
    assert failed and all(k["mistake"] and names in k["mistake"] for k in failed)
    assert [names in d for d in cells["test_standardize"]["diagnosis"]] == [True]
    assert [f["checks"] for f in cells["test_standardize"]["findings"]] == [len(failed)]


@pytest.mark.e2e
def test_a_question_s_numbers_are_variables_its_mistakes_use(graded):
    """A question's numbers are in the setup cell as variables, as well as in its text: a QA file is
    plain Python over the notebook's own variables, so the question's mistake can be written at all."""
    course, results, _ = graded
    release = nbformat.read(str(course.root / "release" / "sum" / NEW / f"{NEW}.ipynb"), as_version=4)
    setup = next(c for c in release.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup")
    assert "q1_values = np.array([" in setup.source
    shown = next(c for c in release.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "md_q1").source
    numbers = setup.source.split("q1_values = np.array([", 1)[1].split("])", 1)[0].split(", ")
    assert all(f"{float(v):.2f}" in shown for v in numbers), (numbers, shown)
    cells = _cells(results["sum"])
    assert cells["test_standardize"]["score"] == 2 and cells["test_q1"]["score"] == 0
    assert [d for d in cells["test_q1"]["diagnosis"] if "the sum of the numbers" in d], cells["test_q1"]


@pytest.mark.e2e
def test_example_right_answer_keeps_full_marks(graded):
    _, results, _ = graded
    assert {g: c["score"] for g, c in _cells(results["right"]).items()} == {"test_standardize": 2, "test_q1": 1}


# -- --from, and refusals -------------------------------------------------------------------

def test_from_copies_and_renames(tmp_path, capsys):
    course = _bare_course(tmp_path / "course")
    assert course.cli("new", "first") == 0
    (course.root / "source" / "first" / "__pycache__").mkdir()
    (course.root / "source" / "first" / "__pycache__" / "params.cpython-311.pyc").write_bytes(b"x")
    capsys.readouterr()
    assert course.cli("new", "second", "--from", "first") == 0
    out = capsys.readouterr().out
    assert "second" in out and "first" in out
    for part in ("source", "autograder", "solutions"):
        old = _tree(course.root / part / "first")
        new = _tree(course.root / part / "second")
        assert new == sorted(p.replace("first.ipynb", "second.ipynb") for p in old)
    assert (course.root / "source" / "second" / "second.ipynb").read_text() == \
        (course.root / "source" / "first" / "first.ipynb").read_text()
    assert not (course.root / "source" / "second" / "__pycache__").exists()


def test_from_a_multi_notebook_assignment_renames_only_the_one_named_after_it(tmp_path):
    course = _bare_course(tmp_path / "course")
    src = course.root / "source" / "week1"
    src.mkdir(parents=True)
    (src / "week1.ipynb").write_text("{}")
    (src / "quiz.ipynb").write_text("{}")
    (src / "params_week1_extra.py").write_text("")
    assert course.cli("new", "week2", "--from", "week1") == 0
    assert _tree(course.root / "source" / "week2") == ["params_week1_extra.py", "quiz.ipynb", "week2.ipynb"]
    assert not (course.root / "autograder" / "week2").exists()  # week1 had none: nothing made up


@pytest.mark.parametrize("args, expected", [
    (["new", "../escape"], "invalid assignment id"),
    (["new", ""], "invalid assignment id"),
    (["new", "ok", "--from", "missing"], "unknown assignment 'missing'"),
    (["new", "ok", "--from", "../x"], "invalid assignment id"),
])
def test_refuses_bad_names(tmp_path, capsys, args, expected):
    course = _bare_course(tmp_path / "course")
    err = _one_line_error(capsys, course.cli(*args))
    assert expected in err
    assert not (course.root / "source").exists() or not any((course.root / "source").iterdir())


@pytest.mark.parametrize("part", ["source", "autograder", "solutions"])
def test_refuses_an_existing_assignment(tmp_path, capsys, part):
    course = _bare_course(tmp_path / "course")
    (course.root / part / "taken").mkdir(parents=True)
    (course.root / part / "taken" / "keep.txt").write_text("mine")
    err = _one_line_error(capsys, course.cli("new", "taken"))
    assert "exists already" in err
    assert _tree(course.root) == sorted(["gradebook.db", "nbgrader_config.py", f"{part}/taken/keep.txt"])


def test_outside_a_course_is_one_line(tmp_path, capsys):
    from gradekit.cli.main import main

    err = _one_line_error(capsys, main(["--course", str(tmp_path), "new", "x"]))
    assert "not a course directory" in err


def test_skeleton_ships_no_course_and_no_python_modules():
    from gradekit.authoring.scaffold import SKELETON

    files = [p for p in SKELETON.rglob("*") if p.is_file()]
    assert files and all(p.name.endswith(".tmpl") for p in files)  # never imported or collected as tests
    package = REPO / "gradekit"
    for path in files + [package / "authoring" / "scaffold.py", package / "qa" / "qaset.py"]:
        text = path.read_text()
        assert "self_attention" not in text and "multi_head_attention" not in text, path
