"""gradekit.intake.submission: reading submitted files defensively and restoring instructor cells."""

from __future__ import annotations

import copy
import json

import nbformat
import pytest

from conftest import STUDENTS, cell_by_id, grade_id, is_solution, is_test, nbgrader_meta, with_solutions
from gradekit.errors import SubmissionError
from gradekit.intake.submission import code_to_run, read_notebook, sanitize

STUDENT = STUDENTS[0]


@pytest.fixture(scope="module")
def release(shared_course):
    return shared_course.release(STUDENT)


@pytest.fixture(scope="module")
def key(shared_course):
    return shared_course.answer_key(STUDENT)


@pytest.fixture
def submission(key):
    """A fresh copy of the student's answer key, as if submitted."""
    return copy.deepcopy(key)


def _write(tmp_path, content) -> object:
    path = tmp_path / "self_attention.ipynb"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


# -- read_notebook ------------------------------------------------------------------

@pytest.mark.parametrize("content, reason", [
    (b"", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\x00\x80", "binary"),
    (b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4, "binary"),
])
def test_read_rejects_empty_and_binary(tmp_path, content, reason):
    with pytest.raises(SubmissionError, match=reason) as info:
        read_notebook(_write(tmp_path, content))
    assert "self_attention.ipynb" in str(info.value)
    assert "\n" not in str(info.value)


def test_read_rejects_truncated_json(tmp_path, key):
    text = nbformat.writes(key)
    with pytest.raises(SubmissionError, match="not valid JSON") as info:
        read_notebook(_write(tmp_path, text[: len(text) // 2]))
    assert "truncated" in str(info.value) and "line" in str(info.value)
    with pytest.raises(SubmissionError) as info:
        read_notebook(_write(tmp_path, '{"cells": ["abc'))      # cut inside a string
    assert "Unterminated string starting at line 1" in str(info.value) and "at at" not in str(info.value)


@pytest.mark.parametrize("text", ['[1, 2, 3]', '"a notebook"', '42', 'null', '{"metadata": {}, "nbformat": 4}',
                                  '{"name": "not a notebook"}',
                                  '{"nbformat": 4, "cells": [], "n": ' + "9" * 5000 + "}"])   # Python won't read it
def test_read_rejects_json_that_is_not_a_notebook(tmp_path, text):
    with pytest.raises(SubmissionError, match="not a Jupyter notebook"):
        read_notebook(_write(tmp_path, text))


def test_read_rejects_nbformat_3(tmp_path, key):
    v3 = nbformat.v3.new_notebook(worksheets=[nbformat.v3.new_worksheet(cells=[
        nbformat.v3.new_code_cell(input="def softmax(x, axis=-1):\n    return x\n")])])
    text = nbformat.writes(v3, version=3)
    assert json.loads(text)["nbformat"] == 3
    with pytest.raises(SubmissionError, match="format 3") as info:
        read_notebook(_write(tmp_path, text))
    assert "format 4" in str(info.value)  # says what to do


@pytest.mark.parametrize("major", [5, "4", None])
def test_read_rejects_other_formats(tmp_path, major):
    with pytest.raises(SubmissionError, match="not supported"):
        read_notebook(_write(tmp_path, json.dumps({"nbformat": major, "cells": []})))


def test_read_rejects_cells_that_are_not_a_list(tmp_path):
    with pytest.raises(SubmissionError, match="no cell list"):
        read_notebook(_write(tmp_path, json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": {"a": 1}})))


def test_read_rejects_oversize_and_missing(tmp_path, key):
    path = _write(tmp_path, nbformat.writes(key))
    with pytest.raises(SubmissionError, match="over the"):
        read_notebook(path, max_bytes=1000)
    with pytest.raises(SubmissionError, match="cannot be read"):
        read_notebook(tmp_path / "missing.ipynb")


def test_read_accepts_the_answer_key(tmp_path, key):
    nb = read_notebook(_write(tmp_path, nbformat.writes(key)))
    assert [grade_id(c) for c in nb.cells] == [grade_id(c) for c in key.cells]
    assert [c.source for c in nb.cells] == [c.source for c in key.cells]


def test_read_skips_junk_cells_and_joins_sources(tmp_path):
    data = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        "not a cell", 42, {"cell_type": "widget", "source": "x"},
        {"cell_type": "code", "source": ["a = 1\n", 7, "b = 2\n"], "metadata": "junk", "outputs": "junk"},
        {"cell_type": "markdown", "source": {"not": "text"}},
    ]}
    nb = read_notebook(_write(tmp_path, json.dumps(data)))
    assert [c.cell_type for c in nb.cells] == ["code", "markdown"]
    assert nb.cells[0].source == "a = 1\nb = 2\n"
    assert nb.cells[0].metadata == {}
    assert nb.cells[1].source == ""


def test_read_drops_prefilled_outputs(tmp_path, key):
    nb = copy.deepcopy(key)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="Hidden tests: 2 / 2 points\n")]
            cell.execution_count = 3
    got = read_notebook(_write(tmp_path, nbformat.writes(nb)))
    for cell in got.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs") and cell.get("execution_count") is None


# -- sanitize -----------------------------------------------------------------------

def _ids(nb):
    return [grade_id(c) for c in nb.cells if grade_id(c)]


def test_sanitize_answer_key_is_clean(submission, release):
    out, notes = sanitize(submission, release)
    assert notes == []
    assert _ids(out) == _ids(release)
    for o, r, s in zip(out.cells, release.cells, submission.cells):
        assert o.source == (s.source if is_solution(r) else r.source)


def test_sanitize_restores_edited_test_cell(submission, release):
    cell_by_id(submission, "test_softmax").source = "print('all good')\n"
    out, notes = sanitize(submission, release)
    assert cell_by_id(out, "test_softmax").source == cell_by_id(release, "test_softmax").source
    assert any("test_softmax" in n and "restored" in n for n in notes)


def test_sanitize_restores_edited_locked_setup_cell(submission, release):
    cell_by_id(submission, "setup").source = "import numpy as np\nX = np.zeros((5, 4))\n"
    out, notes = sanitize(submission, release)
    assert cell_by_id(out, "setup").source == cell_by_id(release, "setup").source
    assert any("setup" in n for n in notes)


def test_sanitize_restores_points(submission, release):
    cell = cell_by_id(submission, "test_self_attention")
    cell.metadata["nbgrader"]["points"] = 100
    cell.metadata["nbgrader"]["locked"] = False
    cell.metadata["nbgrader"]["solution"] = True
    out, _ = sanitize(submission, release)
    meta = nbgrader_meta(cell_by_id(out, "test_self_attention"))
    assert meta["points"] == 3 and meta["locked"] is True and meta["solution"] is False
    assert sum(nbgrader_meta(c)["points"] for c in out.cells if is_test(c)) == 20


def test_sanitize_restores_test_cell_turned_into_markdown(submission, release):
    index = next(i for i, c in enumerate(submission.cells) if grade_id(c) == "test_kv_cache")
    old = submission.cells[index]
    submission.cells[index] = nbformat.v4.new_markdown_cell("nothing to see", metadata=old.metadata)
    out, notes = sanitize(submission, release)
    cell = cell_by_id(out, "test_kv_cache")
    assert cell.cell_type == "code"
    assert cell.source == cell_by_id(release, "test_kv_cache").source
    assert notes


def test_sanitize_restores_deleted_test_cells(submission, release):
    submission.cells = [c for c in submission.cells if not is_test(c)]
    out, _ = sanitize(submission, release)
    assert _ids(out) == _ids(release)
    for gid in ("test_softmax", "test_softmax_stability", "test_kv_cache_decode"):
        assert cell_by_id(out, gid).source == cell_by_id(release, gid).source


def test_sanitize_restores_deleted_everything(release):
    out, _ = sanitize(nbformat.v4.new_notebook(), release)
    assert _ids(out) == _ids(release)
    assert [c.source for c in out.cells] == [c.source for c in release.cells]


def test_sanitize_added_grade_cell_counts_for_nothing(submission, release):
    fake = nbformat.v4.new_code_cell("assert True\n", metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "grade_id": "test_bonus", "points": 50,
        "schema_version": 3}})
    submission.cells.insert(5, fake)
    out, notes = sanitize(submission, release)
    assert "test_bonus" not in _ids(out)
    added = [c for c in out.cells if c.source == "assert True\n"]
    assert len(added) == 1 and "nbgrader" not in added[0].metadata
    assert sum(nbgrader_meta(c).get("points", 0) for c in out.cells if is_test(c)) == 20
    assert any("test_bonus" in n for n in notes)
    # it is run as an ordinary cell
    assert "assert True\n" in [c["source"] for c in code_to_run(out)]


def test_sanitize_duplicate_grade_ids(submission, release):
    original = cell_by_id(submission, "softmax").source
    dup_solution = nbformat.v4.new_code_cell("# second softmax cell\n", metadata=copy.deepcopy(
        cell_by_id(submission, "softmax").metadata))
    dup_test = nbformat.v4.new_code_cell("# second test cell\n", metadata=copy.deepcopy(
        cell_by_id(submission, "test_softmax").metadata))
    submission.cells += [dup_solution, dup_test]
    out, notes = sanitize(submission, release)
    assert _ids(out) == _ids(release)  # each grade_id exactly once
    assert cell_by_id(out, "softmax").source == original  # the first one wins
    extras = [c for c in out.cells if c.source in ("# second softmax cell\n", "# second test cell\n")]
    assert len(extras) == 2 and all("nbgrader" not in c.metadata for c in extras)
    assert sum(1 for n in notes if "second cell" in n) == 2


def test_sanitize_drops_outputs(submission, release):
    for cell in submission.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="20 / 20 points\n")]
            cell.execution_count = 7
    out, _ = sanitize(submission, release)
    for cell in out.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


def test_sanitize_keeps_solutions_and_added_cells_in_place(submission, release):
    cell_by_id(submission, "weighted_sum").source = "def weighted_sum(w, V):\n    return w @ V\n"
    index = next(i for i, c in enumerate(submission.cells) if grade_id(c) == "weighted_sum")
    submission.cells.insert(index + 1, nbformat.v4.new_code_cell("helper = 1\n"))
    out, notes = sanitize(submission, release)
    assert notes == []
    ids = [grade_id(c) or c.source for c in out.cells]
    assert ids[ids.index("weighted_sum") + 1] == "helper = 1\n"
    assert cell_by_id(out, "weighted_sum").source == "def weighted_sum(w, V):\n    return w @ V\n"


def test_sanitize_solution_turned_into_markdown_is_graded_as_code(submission, release):
    index = next(i for i, c in enumerate(submission.cells) if grade_id(c) == "softmax")
    old = submission.cells[index]
    submission.cells[index] = nbformat.v4.new_markdown_cell(old.source, metadata=old.metadata)
    out, notes = sanitize(submission, release)
    cell = cell_by_id(out, "softmax")
    assert cell.cell_type == "code" and cell.source == old.source
    assert any("softmax" in n and "markdown" in n for n in notes)


def test_code_to_run_excludes_test_cells(submission, release):
    out, _ = sanitize(submission, release)
    ids = [c["id"] for c in code_to_run(out)]
    assert "setup" in ids and "softmax" in ids and "kv_cache" in ids
    assert not any(i.startswith("test_") for i in ids)


# -- end to end: what a broken or tampered submission scores ---------------------------

@pytest.mark.parametrize("content, reason", [
    (b"", "empty"),
    (b"\x00\x01\x02\xff\xfe", "binary"),
    ('{"cells": [', "not valid JSON"),
    ('{"nbformat": 3, "worksheets": []}', "format 3"),
])
def test_broken_submission_scores_zero_with_reason(shared_course, content, reason):
    student = STUDENTS[1]
    shared_course.submit(student, content)
    result = shared_course.grade(student)
    assert result.possible == 20 and result.score == 0
    nb = result.notebooks[0]
    assert reason in nb.error
    assert len(nb.cells) == 9 and all(c.score == 0 for c in nb.cells)
    assert shared_course.results_json(student)["notebooks"][0]["error"] == nb.error


def test_tampered_submission_is_graded_on_the_release(shared_course, key):
    student = STUDENTS[0]
    nb = with_solutions(key, {"softmax": "def softmax(x, axis=-1):\n    return x\n"})
    cell_by_id(nb, "test_softmax").source = "pass\n"
    cell_by_id(nb, "test_softmax").metadata["nbgrader"]["points"] = 99
    nb.cells.append(nbformat.v4.new_code_cell("pass\n", metadata={"nbgrader": {
        "grade": True, "solution": False, "grade_id": "test_extra", "points": 100}}))
    shared_course.submit(student, nb)
    result = shared_course.grade(student)
    assert result.possible == 20
    assert result.cell("test_extra") is None
    assert result.cell("test_softmax").score == 0
    assert result.cell("test_project_qkv").score == 2
    graded = nbformat.read(str(shared_course.root / "autograded" / student / "self_attention" /
                               "self_attention.ipynb"), as_version=4)
    notes = graded.metadata["gradekit"]["notes"]
    assert any("test_extra" in n for n in notes) and any("test_softmax" in n for n in notes)


def test_missing_submission_and_misnamed_notebook(shared_course):
    student = STUDENTS[2]
    result = shared_course.grade(student)
    assert result.error == "no submission" and result.score == 0
    folder = shared_course.root / "submitted" / student / "self_attention"
    folder.mkdir(parents=True)
    (folder / "my_homework.ipynb").write_text("{}")
    result = shared_course.grade(student)
    assert result.score == 0 and "my_homework.ipynb" in result.error and "self_attention.ipynb" in result.error
