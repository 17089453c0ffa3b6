"""A submitted notebook: read it defensively, then put the instructor's cells back.

Reading turns every kind of broken file into a :class:`SubmissionError` with
a reason a student can act on. Sanitizing works like nbgrader's
``OverwriteCells``, but from the student's *own* variant (the release copy the
grader rebuilds from the student id):

* every locked cell and every test cell comes from the release, whatever the
  submission did to it (edited, deleted, turned into markdown, points changed);
* a solution cell keeps only the student's source, matched by grade_id; the
  first submitted cell with that id wins;
* cells the student added are kept as plain cells with their nbgrader
  metadata removed, so an added "grade" cell counts for nothing;
* outputs are dropped: nothing pre-filled survives.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TYPE_CHECKING, cast

from gradekit.errors import SubmissionError
from gradekit.i18n.text import _
from gradekit.notebook.cells import grade_id, is_editable, is_test
from gradekit.notebook.nodes import from_dict, new_cell, new_notebook
from gradekit.untrusted import read_bytes

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode

MAX_NOTEBOOK_BYTES = 20 << 20


MAX_CELLS = 5000
_NBGRADER_KEYS: dict[str, type | tuple[type, ...]] = {
    "grade_id": str,
    "solution": bool,
    "grade": bool,
    "locked": bool,
    "task": bool,
    "points": (int, float),
    "schema_version": int,
    "cell_type": str,
    "checksum": str,
}  # copy detection: whose release a cell came from (gradekit.integrity.detect)


def read_notebook(path: Path, max_bytes: int = MAX_NOTEBOOK_BYTES) -> NotebookNode:
    """Read a submitted notebook or raise SubmissionError with the reason.

    Only what grading and copy detection use survives: each cell's type, source, id
    and the scalar fields of its nbgrader metadata (anything else a student put in the
    metadata is dropped here, before any other stage sees it).
    """
    raw = read_bytes(path, max_bytes)  # no symbolic links, FIFOs or devices; never past the limit
    if not raw:
        raise SubmissionError(_("{name}: the file is empty").format(name=path.name))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError(_("{name}: not a text file (binary data)").format(name=path.name)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(
            _("{name}: not valid JSON ({error} at line {line}) -- truncated?")
            # "Unterminated string starting at" reads on: "... at line 3"
            .format(name=path.name, error=exc.msg.removesuffix(" at"), line=exc.lineno)
        ) from None
    except ValueError:  # JSON Python will not read: an integer of more digits than int() converts
        raise SubmissionError(_("{name}: JSON, but not a Jupyter notebook").format(name=path.name)) from None
    except RecursionError:
        raise SubmissionError(_("{name}: JSON nested too deeply to be a notebook").format(name=path.name)) from None
    if not isinstance(data, dict) or "cells" not in data and "worksheets" not in data:
        raise SubmissionError(_("{name}: JSON, but not a Jupyter notebook").format(name=path.name))
    major = data.get("nbformat")
    if major != 4:
        raise SubmissionError(
            _(
                "{name}: notebook format {format} is not supported; open and save it in a current Jupyter (format 4)"
            ).format(name=path.name, format=repr(major)[:20])
        )
    if not isinstance(data.get("cells"), list):
        raise SubmissionError(_("{name}: the notebook has no cell list").format(name=path.name))
    if len(data["cells"]) > MAX_CELLS:
        raise SubmissionError(
            _("{name}: {cells:,} cells, over the limit of {limit:,}").format(
                name=path.name, cells=len(data["cells"]), limit=MAX_CELLS
            )
        )
    cells = []
    for cell in data["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            source = ""
        metadata = cast(dict, cell.get("metadata")) if isinstance(cell.get("metadata"), dict) else {}
        kept = {}
        if isinstance(metadata.get("nbgrader"), dict):
            kept["nbgrader"] = {
                k: v
                for k, v in metadata["nbgrader"].items()
                if k in _NBGRADER_KEYS
                and isinstance(v, _NBGRADER_KEYS[k])
                and not (isinstance(v, str) and len(v) > 200)
            }
        elif "nbgrader" in metadata:
            kept["nbgrader"] = {}
        cell_id = cell.get("id", "")
        cells.append(
            from_dict(
                {
                    "cell_type": cell["cell_type"],
                    "source": source,
                    "metadata": kept,
                    "id": cell_id[:64] if isinstance(cell_id, str) else "",
                }
            )
        )
    nb = new_notebook()
    nb.cells = cells
    return nb


def _plain(cell) -> NotebookNode:
    """A student-added cell: its source only, no grading metadata, no outputs."""
    return new_cell(cell.cell_type if cell.cell_type in ("code", "markdown") else "raw", cell.source)


def sanitize(submitted: NotebookNode, release: NotebookNode) -> tuple[NotebookNode, list[str]]:
    """The notebook to grade: the release's cells, with the student's solutions and extras."""
    notes: list[str] = []
    by_gid: dict[str, NotebookNode] = {}
    by_id: dict[str, NotebookNode] = {}
    for cell in release.cells:
        gid = grade_id(cell)
        if gid:
            by_gid[gid] = cell
        elif cell.get("id"):
            by_id[cell["id"]] = cell
    # a cell that lost its nbgrader metadata (a front end that drops it, a re-saved copy) is
    # still recognised by its cell id, unless a cell carrying that grade_id was submitted too
    gid_of_id = {c["id"]: grade_id(c) for c in release.cells if grade_id(c) and c.get("id")}
    claimed = {grade_id(c) for c in submitted.cells}
    answers: dict[str, str] = {}
    changed: list[str] = []
    extras: dict[str | None, list] = {None: []}
    anchor: str | None = None
    for cell in submitted.cells:
        gid = grade_id(cell)
        if (
            gid is None
            and "nbgrader" not in cell.get("metadata", {})
            and gid_of_id.get(cell.get("id")) not in claimed | {None}
        ):
            gid = gid_of_id[cell["id"]]
            if not any("lost their nbgrader metadata" in str(n) for n in notes):
                notes.append(
                    _(
                        "cells that lost their nbgrader metadata were matched by cell id (first: {cell}); "
                        "the metadata was restored"
                    ).format(cell=gid)
                )
        key = gid if gid in by_gid else (("id:" + cell.get("id", "")) if cell.get("id") in by_id else None)
        if key is not None and key not in answers and key not in extras:
            original = cast("NotebookNode", by_gid.get(gid)) if gid in by_gid else by_id[cell["id"]]
            if is_editable(original):
                if cell.cell_type != original.cell_type:
                    notes.append(
                        _("cell {cell} was turned into {kind}; graded as {original}").format(
                            cell=key, kind=cell.cell_type, original=original.cell_type
                        )
                    )
                answers[key] = cell.source
            elif cell.source != original.source or cell.cell_type != original.cell_type:
                changed.append(key)
            anchor = key
            extras[anchor] = []
            continue
        if gid is not None and gid not in by_gid:
            notes.append(_("an added cell claimed grade_id {cell!r}; it counts for nothing").format(cell=gid))
        elif gid is not None:
            notes.append(_("a second cell with grade_id {cell!r} is treated as an ordinary cell").format(cell=gid))
        extras.setdefault(anchor, []).append(_plain(cell))
    if changed:
        notes.insert(
            0,
            (
                _(
                    "{count} read-only cell(s) differ from your own notebook (first: {cell}); the originals "
                    "were restored"
                )
                if len(changed) <= 2
                else _(
                    "{count} read-only cell(s) differ from your own notebook (first: {cell}); the originals "
                    "were restored; is this someone else's notebook?"
                )
            ).format(count=len(changed), cell=changed[0]),
        )
    out = new_notebook(metadata=copy.deepcopy(release.metadata))
    out.cells = list(extras.get(None, []))
    for cell in release.cells:
        gid = grade_id(cell)
        key = gid if gid else ("id:" + cell["id"] if cell.get("id") in by_id else None)
        new = copy.deepcopy(cell)
        if key in answers:
            new.source = answers[key]
        elif gid and is_editable(cell) and new.cell_type == "code":
            # an answer cell the submission does not have (deleted, or its id changed): put it
            # back for the record but do not run it -- its stub would override whatever the
            # student's own cells defined
            new.metadata["gradekit"] = {"not_submitted": True}
            notes.append(
                _("answer cell {cell} was not in the submission; its stub is shown but not run").format(cell=gid)
            )
        if new.cell_type == "code":
            new.outputs, new.execution_count = [], None
        out.cells.append(new)
        if key is not None:
            out.cells.extend(extras.get(key, []))
    return out, notes


def code_to_run(nb: NotebookNode, tests: set[str] | frozenset = frozenset()) -> list[dict]:
    """The code cells the sandbox runs, in order: everything but the autograder test cells,
    except the test cells in ``tests`` (graded on their own visible asserts, as nbgrader does)."""
    return [
        {"id": grade_id(c) or c.get("id", ""), "source": c.source}
        for c in nb.cells
        if c.cell_type == "code"
        and (not is_test(c) or grade_id(c) in tests)
        and not c.get("metadata", {}).get("gradekit", {}).get("not_submitted")
    ]
