"""gradekit.qa.qaset: the QA-set file format (mistakes/ and correct/ next to the graders)."""

from __future__ import annotations

import pytest

from gradekit.qa import qaset
from gradekit.errors import TemplateError


def _file(tmp_path, text, name="a.py"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_mistake_with_breaks_and_two_sections(tmp_path):
    path = _file(tmp_path, "# names: forgot the mask\n# breaks: test_a, test_b test_c\n# a comment\n"
                           "# %% cell_a\ndef a():\n    return 1\n\n\n# %% cell_b\nb = 2\n")
    assert qaset.parse(path) == ("forgot the mask", ["test_a", "test_b", "test_c"],
                                 {"cell_a": "def a():\n    return 1\n", "cell_b": "b = 2\n"})


def test_right_answer_has_no_names(tmp_path):
    path = _file(tmp_path, "# written with loops\n# %% cell_a\nx = 1\n")
    assert qaset.parse(path) == (None, [], {"cell_a": "x = 1\n"})


def test_section_lines_are_code_not_headers(tmp_path):
    # a "# names:" inside a section is the cell's own comment
    path = _file(tmp_path, "# names: n\n# %% c\n# names: inside\ny = 1\n")
    assert qaset.parse(path)[2] == {"c": "# names: inside\ny = 1\n"}


@pytest.mark.parametrize("text, message", [
    ("# names: x\n", "no '# %% <grade_id>' section"),
    ("x = 1\n", "no '# %% <grade_id>' section"),
    ("# comment\n# names: late\n# %% c\nx = 1\n", "must be the first line"),
    ("# names:   \n# %% c\nx = 1\n", "needs the phrase"),
    ("# %%\nx = 1\n", "needs the solution cell's grade_id"),
    ("# %% c\nx = 1\n# %% c\nx = 2\n", "a second section for c"),
])
def test_malformed_files_are_one_clear_error(tmp_path, text, message):
    with pytest.raises(TemplateError, match="a.py") as info:
        qaset.parse(_file(tmp_path, text))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_files_lists_one_kind(tmp_path):
    (tmp_path / "mistakes").mkdir()
    for name in ("b.py", "a.py", "notes.txt"):
        (tmp_path / "mistakes" / name).write_text("")
    assert [p.name for p in qaset.files(tmp_path, "mistakes")] == ["a.py", "b.py"]
    assert qaset.files(tmp_path, "correct") == []
