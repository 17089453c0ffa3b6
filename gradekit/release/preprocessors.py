"""nbgrader's release preprocessors, in plain Python, for speed; nbgrader's own stay the fallback.

``generate`` strips every student's variant: locks cells, clears solutions
and outputs, computes checksums, removes hidden tests. nbgrader's
preprocessors do it well, but importing them imports nbconvert (over half a
second of every ``generate`` and of every grading process that meets a new
variant) for about a hundred lines of string work. This module does the same
steps, with nbgrader's default settings (gradekit builds its preprocessors
without configuration), in nbgrader's order, mutating the notebook the same
way key for key:

    LockCells         deletable/editable flags (lock solution, grade and read-only cells)
    ClearSolutions    ### BEGIN/END SOLUTION regions and whole solution cells -> the stubs;
                      notebook metadata "celltoolbar" dropped
    ClearOutput       nbconvert's ClearOutputPreprocessor: outputs, execution count,
                      "collapsed"/"scrolled" metadata
    ComputeChecksums  nbgrader.utils.compute_checksum, and the cell type, in the cell's metadata
    ClearHiddenTests  ### BEGIN/END HIDDEN TESTS regions; "celltoolbar" dropped

tests/release/test_preprocessors.py is the oracle: for many students of both shipped
assignments, the release, the registration copy and the answer key this
module makes are byte for byte what nbgrader's preprocessors make. Anything
outside what is copied here -- a kernel language other than Python, a
solution or hidden-test region that is nested, unclosed or in the wrong kind
of cell (nbgrader raises its own error for those) -- raises :class:`Unsupported`,
and :class:`gradekit.release.stripper.Stripper` hands that notebook to nbgrader.
"""

from __future__ import annotations

import hashlib
import re

CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"  # ClearSolutions.code_stub["python"]
TEXT_STUB = "YOUR ANSWER HERE"  # ClearSolutions.text_stub
BEGIN_SOLUTION, END_SOLUTION = "BEGIN SOLUTION", "END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
_INDENT = re.compile(r"\s*")


class Unsupported(Exception):
    """A notebook this module does not strip exactly as nbgrader would: use nbgrader's."""


# -- nbgrader.utils' predicates, as nbgrader reads them (values as stored, not bool()) -----------


def _meta(cell):
    return cell.metadata["nbgrader"] if "nbgrader" in cell.metadata else None


def _grade(cell):
    meta = _meta(cell)
    return False if meta is None else meta.get("grade", False)


def _solution(cell):
    meta = _meta(cell)
    return False if meta is None else meta.get("solution", False)


def _locked(cell):
    meta = _meta(cell)
    if meta is None:
        return False
    if _solution(cell):
        return False
    if _grade(cell):
        return True
    return meta.get("locked", False)


def checksum(cell) -> str:
    """nbgrader.utils.compute_checksum."""
    m = hashlib.md5()
    m.update(cell.source.encode("utf-8"))
    m.update(cell.cell_type.encode("utf-8"))
    m.update(str(_grade(cell)).encode("utf-8"))
    m.update(str(_solution(cell)).encode("utf-8"))
    m.update(str(_locked(cell)).encode("utf-8"))
    m.update(cell.metadata.nbgrader["grade_id"].encode("utf-8"))
    if _grade(cell):
        m.update(str(float(cell.metadata.nbgrader["points"])).encode("utf-8"))
    return m.hexdigest()


# -- the steps -------------------------------------------------------------------------------


def lock_cells(nb) -> None:
    for cell in nb.cells:
        if _solution(cell) and _grade(cell):
            cell.metadata["deletable"] = False
        elif _solution(cell):
            cell.metadata["deletable"] = False
        elif _grade(cell):
            cell.metadata["deletable"] = False
            cell.metadata["editable"] = False
        elif _locked(cell):
            cell.metadata["deletable"] = False
            cell.metadata["editable"] = False


def clear_solutions(nb, code_stub: str = CODE_STUB, text_stub: str = TEXT_STUB) -> None:
    if nb.metadata.get("kernelspec", {}).get("language", "python") != "python":
        raise Unsupported("a kernel language other than Python")
    for cell in nb.cells:
        stub = code_stub if cell.cell_type == "code" else text_stub
        replaced = _replace_region(cell, BEGIN_SOLUTION, END_SOLUTION, stub)
        solution = _solution(cell)
        if replaced and not solution:
            raise Unsupported("a solution region in a cell that is not a solution cell")
        if solution and not replaced:
            cell.source = stub
    if "celltoolbar" in nb.metadata:
        del nb.metadata["celltoolbar"]


def clear_output(nb) -> None:
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            if "metadata" in cell:
                cell.metadata.pop("collapsed", None)
                cell.metadata.pop("scrolled", None)


def compute_checksums(nb) -> None:
    for cell in nb.cells:
        if _grade(cell) or _solution(cell) or _locked(cell):
            cell.metadata.nbgrader["checksum"] = checksum(cell)
            cell.metadata.nbgrader["cell_type"] = cell.cell_type


def clear_hidden_tests(nb) -> None:
    for cell in nb.cells:
        if _replace_region(cell, BEGIN_HIDDEN, END_HIDDEN, None) and not _grade(cell):
            raise Unsupported("a hidden-test region in a cell that is not a grade cell")
    if "celltoolbar" in nb.metadata:
        del nb.metadata["celltoolbar"]


def _replace_region(cell, begin: str, end: str, stub: str | None) -> bool:
    """Replace (``stub``) or remove (None) each begin..end region of the cell's source, as
    nbgrader does line by line; whether there was one."""
    source = cell.source
    if begin not in source and end not in source:
        cell.source = source
        return False
    stub_lines = stub.split("\n") if stub is not None else []
    lines: list[str] = []
    inside = found = False
    for line in source.split("\n"):
        if begin in line:
            if inside:
                raise Unsupported("nested regions")
            inside = found = True
            match = _INDENT.match(line)
            assert match is not None  # \s* matches at the start of any line
            indent = match.group(0)
            lines.extend(indent + stub_line for stub_line in stub_lines)
        elif end in line:
            inside = False
        elif not inside:
            lines.append(line)
    if inside:
        raise Unsupported("a region that is not closed")
    cell.source = "\n".join(lines)
    return found


# -- what release.Stripper asks for ------------------------------------------------------------


def student_version(nb, code_stub: str = CODE_STUB, text_stub: str = TEXT_STUB):
    """LockCells, ClearSolutions, ClearOutput, ComputeChecksums, ClearHiddenTests, ComputeChecksums
    (the stubs replace the answers: a student's language may have its own)."""
    registration_version(nb, code_stub, text_stub)
    clear_hidden_tests(nb)
    compute_checksums(nb)
    return nb


def registration_version(nb, code_stub: str = CODE_STUB, text_stub: str = TEXT_STUB):
    """LockCells, ClearSolutions, ClearOutput, ComputeChecksums (what SaveCells is given)."""
    lock_cells(nb)
    clear_solutions(nb, code_stub, text_stub)
    clear_output(nb)
    compute_checksums(nb)
    return nb


def answer_key(nb):
    """LockCells, ClearOutput, ClearHiddenTests; then the solution cells without their
    ``BEGIN/END SOLUTION`` marker lines (what release.NbgraderStripper.answer_key does)."""
    lock_cells(nb)
    clear_output(nb)
    clear_hidden_tests(nb)
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            cell.source = "\n".join(
                line for line in cell.source.split("\n") if BEGIN_SOLUTION not in line and END_SOLUTION not in line
            )
    return nb
