"""gradekit.notebook.nodes.read against nbformat.read: the oracle, and the lean import."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import pytest

from conftest import REPO
from gradekit.notebook import nodes as notebooks

SHIPPED = sorted(REPO.glob("source/*/*.ipynb")) + sorted(REPO.glob("gradekit/authoring/skeleton/source/*/*.ipynb"))


def _same(path):
    ours, theirs = notebooks.read(path), nbformat.read(str(path), as_version=4)
    assert type(ours) is type(theirs)
    assert json.dumps(ours) == json.dumps(theirs)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_the_shipped_notebooks_read_as_nbformat_reads_them(path):
    _same(path)


def _write(tmp_path, data) -> str:
    path = tmp_path / "odd.ipynb"
    path.write_text(json.dumps(data))
    return path


def test_multi_line_text_and_transient_fields_as_nbformat(tmp_path):
    data = {"nbformat": 4, "nbformat_minor": 5,
            "metadata": {"signature": "x", "orig_nbformat": 3, "kernelspec": {"name": "python3"}},
            "cells": [
                {"id": "a", "cell_type": "markdown", "metadata": {"trusted": True}, "source": ["one\n", "two"],
                 "attachments": {"i.png": {"image/png": ["aGVs", "bG8="], "application/json": ["x"]}}},
                {"id": "b", "cell_type": "code", "metadata": {}, "execution_count": 1, "source": "x",
                 "outputs": [{"output_type": "stream", "name": "stdout", "text": ["a\n", "b"]},
                             {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                              "data": {"text/plain": ["1", "2"], "application/vnd.x+json": ["k"]}}]},
            ]}
    _same(_write(tmp_path, data))


def test_what_nbformat_would_change_is_read_by_nbformat(tmp_path):
    three = {"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": ""},
             "worksheets": [{"cells": [{"cell_type": "code", "input": "x = 1", "outputs": [], "language": "python",
                                        "metadata": {}}], "metadata": {}}]}
    nb = notebooks.read(_write(tmp_path, three))
    assert nb.nbformat == 4 and nb.cells[0].source == "x = 1"   # converted, as nbformat converts
    repeated = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [{"id": "same", "cell_type": "markdown", "metadata": {}, "source": "a"},
                          {"id": "same", "cell_type": "markdown", "metadata": {}, "source": "b"}]}
    with pytest.warns(Warning):   # nbformat's own repair, with its warning
        nb = notebooks.read(_write(tmp_path, repeated))
    assert nb.cells[0].id != nb.cells[1].id


def test_reading_a_template_does_not_import_nbformats_validator():
    code = ("import sys, gradekit.notebook.nodes as n, gradekit\n"
            f"nb = n.read({str(SHIPPED[0])!r})\n"
            "assert type(nb).__name__ == 'NotebookNode' and nb.cells\n"
            "assert 'nbformat.validator' not in sys.modules and 'jsonschema' not in sys.modules, 'imported'\n"
            "import nbformat\n"
            "assert nbformat.reads and nbformat.v4.new_notebook() is not None\n"   # the rest, on demand
            "assert isinstance(nbformat.from_dict({}), nbformat.NotebookNode)\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_constructors_build_what_nbformat_builds():
    from nbformat import v4

    assert (notebooks.NBFORMAT, notebooks.NBFORMAT_MINOR) == (v4.nbformat, v4.nbformat_minor)
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}, "x": [1, {"y": 2}]}
    ours, theirs = notebooks.new_notebook(metadata=metadata), v4.new_notebook(metadata=metadata)
    assert json.dumps(ours) == json.dumps(theirs) and type(ours.metadata.kernelspec) is type(theirs.metadata.kernelspec)
    assert json.dumps(notebooks.new_notebook()) == json.dumps(v4.new_notebook())
    for kind, make in (("code", v4.new_code_cell), ("markdown", v4.new_markdown_cell), ("raw", v4.new_raw_cell)):
        ours, theirs = notebooks.new_cell(kind, "x = 1\n"), make("x = 1\n")
        assert list(ours) == list(theirs) and len(ours.id) == len(theirs.id) and ours.id != theirs.id
        ours.id = theirs.id
        assert json.dumps(ours) == json.dumps(theirs)
        nbformat.validate(v4.new_notebook(cells=[ours]))   # nbformat accepts it
    ours, theirs = notebooks.new_stream_output("a\nb\n"), v4.new_output("stream", name="stdout", text="a\nb\n")
    assert json.dumps(ours) == json.dumps(theirs)
