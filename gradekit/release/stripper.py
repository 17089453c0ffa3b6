"""The release steps applied to one notebook: gradekit's own, or nbgrader's as the fallback.

:class:`Stripper` runs :mod:`gradekit.release.preprocessors` (byte for byte what
nbgrader's preprocessors make, by test); a notebook that module does not
handle goes through :class:`NbgraderStripper`, nbgrader's own preprocessors,
imported only then (their import costs about a second: nbconvert). Three
versions of a notebook come out of it: the student's (released), the one
nbgrader's SaveCells registers, and the answer key's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from gradekit.notebook.nodes import from_dict

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode


def stubs(language: str = "en") -> tuple[dict[str, str], str]:
    """nbgrader's stubs for a cleared answer (code, free text), in ``language``."""
    from gradekit.i18n import _
    from gradekit.i18n.catalogs import translator
    from gradekit.i18n.text import render

    say = translator(None, None, language)
    code = render(_("YOUR CODE HERE"), say)
    return {"python": f"# {code}\nraise NotImplementedError()"}, render(_("YOUR ANSWER HERE"), say)


class Stripper:
    """The release steps, applied per notebook: :mod:`gradekit.release.preprocessors`, or nbgrader's own
    preprocessors for a notebook that module does not handle.

    Each method strips the notebook it is given, in place, and returns it:
    pass one nothing else still needs -- a Variant's, freshly rendered.
    The stubs that replace the answers are in ``language``.
    """

    def __init__(self, language: str = "en") -> None:
        code_stub, text_stub = stubs(language)
        self.language = language
        self._stubs = (code_stub["python"], text_stub)
        self._nbgrader: NbgraderStripper | None = None

    def student_version(self, nb: NotebookNode) -> NotebookNode:
        """The notebook as released: solutions and hidden tests removed, cells locked."""
        return self._strip(nb, "student_version", *self._stubs)

    def registration_version(self, nb: NotebookNode) -> NotebookNode:
        """The notebook as SaveCells must see it: solutions cleared, hidden tests present."""
        return self._strip(nb, "registration_version", *self._stubs)

    def answer_key(self, nb: NotebookNode) -> NotebookNode:
        """Locked and without outputs or hidden tests; the solutions kept (no checksums)."""
        return self._strip(nb, "answer_key")

    def _strip(self, nb: NotebookNode, version: str, *stubs: str) -> NotebookNode:
        from gradekit.release import preprocessors as strip

        original = json.dumps(nb)  # strip changes the notebook as it goes: nbgrader gets this
        try:
            return getattr(strip, version)(nb, *stubs)
        except strip.Unsupported:
            if self._nbgrader is None:
                self._nbgrader = NbgraderStripper(self.language)
            return getattr(self._nbgrader, version)(from_dict(json.loads(original)))


class NbgraderStripper:
    """nbgrader's release preprocessors, built once: the fallback of :class:`Stripper`, and the
    oracle its test compares :mod:`gradekit.release.preprocessors` with. The stubs are in ``language``."""

    def __init__(self, language: str = "en") -> None:
        from nbgrader.preprocessors import ClearHiddenTests, ClearOutput, ClearSolutions, ComputeChecksums, LockCells

        code_stub, text_stub = stubs(language)
        self.language = language
        self.lock = LockCells()
        # nbgrader's stubs for other kernel languages stay (only Python's is translated)
        self.clear_solutions = ClearSolutions(
            code_stub={**ClearSolutions().code_stub, **code_stub}, text_stub=text_stub
        )
        self.clear_output = ClearOutput()
        self.checksums = ComputeChecksums()
        self.clear_hidden = ClearHiddenTests()

    def _run(self, nb, *steps):
        resources: dict = {}
        for step in steps:
            nb, resources = step.preprocess(nb, resources)
        return nb

    def student_version(self, nb: NotebookNode) -> NotebookNode:
        nb = self._run(nb, self.lock, self.clear_solutions, self.clear_output, self.checksums)
        return self._run(nb, self.clear_hidden, self.checksums)

    def registration_version(self, nb: NotebookNode) -> NotebookNode:
        return self._run(nb, self.lock, self.clear_solutions, self.clear_output, self.checksums)

    def answer_key(self, nb: NotebookNode) -> NotebookNode:
        """The variant with its solutions kept, without the ``### BEGIN/END SOLUTION`` marker lines
        (formgrader shows them as headings in a free-text answer)."""
        nb = self._run(nb, self.lock, self.clear_output, self.clear_hidden)
        markers = (self.clear_solutions.begin_solution_delimeter, self.clear_solutions.end_solution_delimeter)
        for cell in nb.cells:
            if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                # the same test as nbgrader's ClearSolutions: a line containing a delimiter is a marker
                cell.source = "\n".join(
                    line for line in cell.source.split("\n") if not any(marker in line for marker in markers)
                )
        return nb
