"""Notebooks in memory as nbformat's NotebookNode, without importing the rest of nbformat.

``import nbformat`` loads its validator, jsonschema, fastjsonschema and every
format version: a tenth of a second, most of what ``generate`` spends besides
rendering. ``generate`` needs none of it: it reads version-4 templates and
writes plain JSON. So this module imports only ``nbformat.notebooknode`` (the
NotebookNode class and ``from_dict``, through :mod:`gradekit.imports`, which
skips the package's ``__init__``; anything else asked of ``nbformat`` later
imports all of it as usual).

:func:`read` is ``nbformat.read(path, as_version=4)`` for a notebook in
format 4: the JSON as a NotebookNode, multi-line text joined, transient
fields dropped, as nbformat's v4 reader does. nbformat's reader also
validates, but only logs what it finds; :func:`read` does not. A notebook in
another format, or one whose cell ids nbformat's validation would replace
(missing or repeated, from format 4.5 on), goes to ``nbformat.read``.
:func:`new_notebook`, :func:`new_cell` and :func:`new_stream_output` are
nbformat.v4's constructors without validating what they build (valid by
construction; the grading stages build several per submission).
tests/notebook/test_nodes.py holds :func:`read` to ``nbformat.read`` on every
shipped notebook and on notebooks that reach each rule, and the constructors
to nbformat's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode


def _node():
    from gradekit.imports import without_package_init

    return without_package_init("nbformat", "nbformat.notebooknode")


def from_dict(data) -> NotebookNode:
    """nbformat.from_dict: nested dicts as NotebookNodes."""
    return _node().from_dict(data)


def read(path: str | Path) -> NotebookNode:
    """``nbformat.read(path, as_version=4)``, without importing nbformat's validator for a
    notebook already in format 4."""
    text = Path(path).read_text(encoding="utf-8")
    data = json.loads(text)
    if (
        not isinstance(data, dict)
        or data.get("nbformat") != 4
        or not isinstance(data.get("cells"), list)
        or not isinstance(data.get("metadata", {}), dict)
        or not _ids_as_validated(data)
    ):
        import nbformat

        return nbformat.reads(text, as_version=4)
    nb = from_dict(data)
    _rejoin_lines(nb)
    _strip_transient(nb)
    return nb


# -- nbformat.v4's constructors, without validating what is valid by construction -----------------

NBFORMAT, NBFORMAT_MINOR = 4, 5  # nbformat.v4.nbformat, nbformat.v4.nbformat_minor


def new_notebook(**fields) -> NotebookNode:
    """``nbformat.v4.new_notebook(**fields)``."""
    node = _node().NotebookNode
    nb = node(nbformat=NBFORMAT, nbformat_minor=NBFORMAT_MINOR, metadata=node(), cells=[])
    nb.update(fields)
    return nb


def new_cell(cell_type: str, source: str = "") -> NotebookNode:
    """``nbformat.v4.new_code_cell(source)`` (or the markdown or raw cell), with a new random id."""
    from gradekit.imports import without_package_init

    node = _node().NotebookNode
    new_id = without_package_init("nbformat", "nbformat.corpus.words").generate_corpus_id()
    if cell_type == "code":
        return node(id=new_id, cell_type="code", metadata=node(), execution_count=None, source=source, outputs=[])
    return node(id=new_id, cell_type=cell_type, source=source, metadata=node())


def new_stream_output(text: str, name: str = "stdout") -> NotebookNode:
    """``nbformat.v4.new_output("stream", name=name, text=text)``."""
    output = _node().NotebookNode(output_type="stream")
    output.name = name
    output.text = text
    return output


def _ids_as_validated(data: dict) -> bool:
    """Whether nbformat's validation leaves the cell ids alone: from format 4.5 on it gives a
    cell without an id, or with a duplicate one, a new random id."""
    minor = data.get("nbformat_minor", 0)
    if not isinstance(minor, int):
        return False
    if minor < 5:
        return True
    ids = [cell.get("id") if isinstance(cell, dict) else None for cell in data["cells"]]
    return all(isinstance(i, str) for i in ids) and len(set(ids)) == len(ids)


def _rejoin_lines(nb) -> None:
    """nbformat.v4.rwbase.rejoin_lines."""
    for cell in nb.cells:
        if "source" in cell and isinstance(cell.source, list):
            cell.source = "".join(cell.source)
        for attachment in cell.get("attachments", {}).values():
            _rejoin_mimebundle(attachment)
        if cell.get("cell_type", None) == "code":
            for output in cell.get("outputs", []):
                output_type = output.get("output_type", "")
                if output_type in {"execute_result", "display_data"}:
                    _rejoin_mimebundle(output.get("data", {}))
                elif output_type and isinstance(output.get("text", ""), list):
                    output.text = "".join(output.text)


def _is_json_mime(mime: str) -> bool:
    return mime == "application/json" or (mime.startswith("application/") and mime.endswith("+json"))


def _rejoin_mimebundle(data) -> None:
    """nbformat.v4.rwbase._rejoin_mimebundle: join the lines of each non-JSON value."""
    for key, value in list(data.items()):
        if not _is_json_mime(key) and isinstance(value, list) and all(isinstance(line, str) for line in value):
            data[key] = "".join(value)


def _strip_transient(nb) -> None:
    """nbformat.v4.rwbase.strip_transient."""
    nb.metadata.pop("orig_nbformat", None)
    nb.metadata.pop("orig_nbformat_minor", None)
    nb.metadata.pop("signature", None)
    for cell in nb.cells:
        cell.metadata.pop("trusted", None)
