"""The student's Lab: Validate says one line per failed cell, in the student's language (issue 20).

nbgrader's Validate button shows every failed cell's source and traceback; on a
notebook just fetched, that is a dialog of tracebacks. gradekit's server
extension (``gradekit.handout.lab``) swaps in its validator; these run it on
real releases, as the button's handler does.
"""

from __future__ import annotations

import nbformat
import pytest

from conftest import ASSIGNMENT, NOTEBOOK, CourseDir, cell_by_id

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    course = CourseDir.create(tmp_path_factory.mktemp("lab") / "course", ("alice", "bob"))
    (course.root / "languages.csv").write_text("student_id,language\nbob,zh\n")
    course.generate()
    return course


def _validator():
    """gradekit's validator (imported here: the extension brings Jupyter's server, 1.3 s of CPU that every
    pytest worker would pay collecting this module)."""
    from gradekit.handout.lab import GradekitValidator

    return GradekitValidator()


def _validate(tmp_path, nb) -> dict:
    path = tmp_path / f"{NOTEBOOK}.ipynb"
    path.write_text(nbformat.writes(nb))
    return _validator().validate(str(path))


def _stubs(nb) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution") and "NotImplementedError" in c.source]


def test_an_untouched_notebook_is_one_line_a_cell_saying_what_is_left(releases, tmp_path):
    nb = releases.release("alice")
    failed = _validate(tmp_path, nb)["failed"]
    assert failed and len(failed) <= len([c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")])
    for entry in failed:
        assert "\n" not in entry["error"] and "Traceback" not in entry["error"], entry
        assert entry["raw_error"] in ("still to do: write your code in place of raise NotImplementedError()",
                                  "still to do: write your answer"), entry
    titles = [entry["source"] for entry in failed]
    assert any("(test_softmax)" in t and "Softmax" in t for t in titles), titles   # the exercise, by its heading
    assert len(_stubs(nb)) >= 5


def test_in_chinese_for_a_student_who_reads_chinese(releases, tmp_path):
    failed = _validate(tmp_path, releases.release("bob"))["failed"]
    assert failed and all(e["raw_error"].startswith("还没完成") for e in failed), failed


def test_the_line_is_escaped_for_the_dialog_that_shows_it_as_html(releases, tmp_path):
    nb = releases.answer_key("alice")
    cell_by_id(nb, "softmax").source = (
        "def softmax(x, axis=-1):\n    raise ValueError('<b>bold</b> & <i>more</i>')\n")
    failed = _validate(tmp_path, nb)["failed"]
    assert failed[0]["raw_error"].startswith("ValueError: <b>bold</b> & <i>more</i>"), failed[0]
    assert failed[0]["error"].startswith("ValueError: &lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;"), failed[0]


def test_a_failed_visible_check_says_its_own_message(releases, tmp_path):
    nb = releases.answer_key("alice")
    softmax = cell_by_id(nb, "softmax")
    softmax.source = "def softmax(x, axis=-1):\n    return np.exp(np.asarray(x, dtype=float))\n"
    failed = _validate(tmp_path, nb)["failed"]
    assert failed, "a softmax that does not normalise passed Validate"
    first = failed[0]
    assert "(test_softmax)" in first["source"]
    assert first["raw_error"].startswith("AssertionError: the weights should sum to 1"), first
    assert all("\n" not in e["error"] for e in failed)


def test_a_right_notebook_passes(releases, tmp_path):
    results = _validate(tmp_path, releases.answer_key("alice"))
    assert not results.get("failed") and not results.get("changed"), results


def test_an_exchange_s_refusal_reaches_the_assignments_tab_as_its_one_line():
    from gradekit.handout.lab import _one_line_failures, one_line

    traceback = ('Traceback (most recent call last):\n  File "x.py", line 1, in submit\n'
                 "nbgrader.exchange.abc.exchange.ExchangeError: the hand-in is 24.1 MiB, over the limit of 20 MiB: "
                 "leave out large data files and hand in again\n")
    said = one_line({"success": False, "value": traceback})
    assert said == {"success": False, "value": "the hand-in is 24.1 MiB, over the limit of 20 MiB: leave out large "
                                               "data files and hand in again"}
    other = {"success": False, "value": "Traceback ...\nKeyError: 'x'\n"}
    assert one_line(other) == other and one_line({"success": True}) == {"success": True}

    class Manager:   # nbgrader's AssignmentList, as the extension finds it
        def submit_assignment(self, course_id, assignment_id):
            return {"success": False, "value": traceback}

    _one_line_failures(Manager)
    _one_line_failures(Manager)   # loaded twice: wrapped once
    assert Manager().submit_assignment("c", "a")["value"].startswith("the hand-in is 24.1 MiB")


def test_an_untouched_quiz_asks_for_answers_not_code(tmp_path_factory, tmp_path):
    """The quiz's answers are values: Validate said "write your code in place of raise NotImplementedError()"
    six times on a quiz just fetched."""
    course = CourseDir.create(tmp_path_factory.mktemp("quiz") / "course", ("alice",), quiz=True)
    course.generate()
    quiz = nbformat.read(str(course.release_path("alice").parent / "quiz.ipynb"), as_version=4)
    path = tmp_path / "quiz.ipynb"
    path.write_text(nbformat.writes(quiz))
    failed = _validator().validate(str(path))["failed"]
    lines = [entry["raw_error"] for entry in failed]
    assert len(lines) >= 5 and all(line == "still to do: write your answer" for line in lines), lines
    assert not any("NotImplementedError" in entry["error"] for entry in failed)
