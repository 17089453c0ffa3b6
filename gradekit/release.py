"""From a variant to what a student receives: nbgrader's release steps, in nbgrader's order.

The order follows nbgrader's ``generate_assignment`` converter:

    LockCells -> ClearSolutions -> ClearOutput -> ComputeChecksums
      -> (SaveCells, once per assignment: registers notebooks and grade cells)
      -> ClearHiddenTests -> ComputeChecksums

ComputeChecksums must run after ClearSolutions (the checksum of a solution
cell is the checksum of its stub) and again after ClearHiddenTests.
The answer key is the variant with its solutions kept: the same cells, ids
and locks as the release, only the solution regions filled in.

The steps run as :mod:`gradekit.strip` implements them (byte for byte what
nbgrader's preprocessors make, by test); a notebook that module does not
handle goes through nbgrader's own preprocessors, imported only then (their
import costs about a second: nbconvert). The registration goes through
:mod:`gradekit.registry`. Grading needs each student's release to restore
locked cells; :class:`ReleaseCache` keeps what ``generate`` stripped under
``.gradekit/releases/`` (the instructor's, 0700), keyed by the digest of the
rendered notebook, so a grading process strips only a variant nobody has
released yet.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from gradekit.course import Course
from gradekit.files import write_notebooks
from gradekit.notebooks import from_dict
from gradekit.variant import Variant

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode


def stubs(language: str = "en") -> tuple[dict[str, str], str]:
    """nbgrader's stubs for a cleared answer (code, free text), in ``language``."""
    from gradekit.i18n import _, translator
    from gradekit.i18n.text import render

    say = translator(None, None, language)
    code = render(_("YOUR CODE HERE"), say)
    return {"python": f"# {code}\nraise NotImplementedError()"}, render(_("YOUR ANSWER HERE"), say)


class Stripper:
    """The release steps, applied per notebook: :mod:`gradekit.strip`, or nbgrader's own
    preprocessors for a notebook that module does not handle.

    Each method strips the notebook it is given, in place, and returns it:
    pass one nothing else still needs -- a Variant's, freshly rendered.
    The stubs that replace the answers are in ``language``.
    """

    def __init__(self, language: str = "en") -> None:
        code_stub, text_stub = stubs(language)
        self.language = language
        self._stubs = (code_stub["python"], text_stub)
        self._nbgrader = None

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
        from gradekit import strip

        original = json.dumps(nb)   # strip changes the notebook as it goes: nbgrader gets this
        try:
            return getattr(strip, version)(nb, *stubs)
        except strip.Unsupported:
            if self._nbgrader is None:
                self._nbgrader = NbgraderStripper(self.language)
            return getattr(self._nbgrader, version)(from_dict(json.loads(original)))


class NbgraderStripper:
    """nbgrader's release preprocessors, built once: the fallback of :class:`Stripper`, and the
    oracle its test compares :mod:`gradekit.strip` with. The stubs are in ``language``."""

    def __init__(self, language: str = "en") -> None:
        from nbgrader.preprocessors import ClearHiddenTests, ClearOutput, ClearSolutions, ComputeChecksums, LockCells

        code_stub, text_stub = stubs(language)
        self.language = language
        self.lock = LockCells()
        # nbgrader's stubs for other kernel languages stay (only Python's is translated)
        self.clear_solutions = ClearSolutions(code_stub={**ClearSolutions().code_stub, **code_stub}, text_stub=text_stub)
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
                cell.source = "\n".join(line for line in cell.source.split("\n")
                                        if not any(marker in line for marker in markers))
        return nb


def register(course: Course, variant: Variant, stripper: Stripper) -> None:
    """Record the assignment, its notebooks and grade cells in nbgrader's gradebook.

    :mod:`gradekit.registry` does it with sqlite3 where it can (and does
    nothing where the gradebook already holds it); the notebooks it leaves go
    through nbgrader's own SaveCells.
    """
    from gradekit.registry import register as register_fast

    versions = {name: stripper.registration_version(nb) for name, nb in variant.notebooks.items()}
    left = register_fast(course, variant.assignment, versions)
    if left:
        save_cells(course, variant.assignment, {name: versions[name] for name in left})


def save_cells(course: Course, assignment: str, notebooks: dict) -> None:
    """nbgrader's own registration: update_or_create_assignment, then SaveCells per notebook."""
    from nbgrader.preprocessors import SaveCells

    from gradekit.gradebook import open_gradebook

    with open_gradebook(course) as gb:
        gb.update_or_create_assignment(assignment)
    save = SaveCells()
    for name, nb in notebooks.items():
        resources = {"nbgrader": {"notebook": name, "assignment": assignment, "db_url": course.db_url}}
        save.preprocess(nb, resources)


def generate(course: Course, assignment: str, students: list[str]) -> list[Path]:
    """Write release/<student>/<assignment>/ for each student; register the assignment."""
    from gradekit.template import AssignmentSource
    from gradekit.variant import build_variant

    source = AssignmentSource.load(course, assignment)
    stripper = Stripper()
    secret = course.secret()
    if students:
        course.pin_secret(secret)   # from now on, students hold numbers made with it
    register(course, build_variant(course, source, students[0] if students else "instructor", secret), stripper)
    jobs = min(os.cpu_count() or 1, max(1, len(students) // 50))
    if jobs == 1:
        return _release_students(course, source, secret, students)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # forked workers inherit the compiled templates; only student ids cross the pipe
    global _FORKED
    _FORKED = (course, source, secret)
    chunks = [students[i::jobs] for i in range(jobs)]
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            return [path for part in pool.map(_release_forked, chunks) for path in part]
    finally:
        _FORKED = None


_FORKED = None


def _release_forked(students: list[str]) -> list[Path]:
    return _release_students(*_FORKED, students)


def _release_students(course: Course, source, secret: bytes, students: list[str]) -> list[Path]:
    from gradekit.variant import build_variant

    cache = ReleaseCache(course, source.name)
    written = []
    for student in students:
        variant = build_variant(course, source, student, secret, render=False)
        written += write_notebooks(course.release_dir(student, source.name), cache.student_versions(variant))
    return written


class ReleaseCache:
    """Each student's released notebooks, kept where only the instructor can read them.

    Keyed by what the release is a function of: the notebook's template (its
    digest, with the translations of the student's language), the student's params, and the code that renders and strips it
    (jinja2's version, gradekit's template and release modules). A changed
    template, params, secret or renderer gives another key, so a stale entry is
    never used; and a hit needs no rendering at all.
    """

    def __init__(self, course: Course, assignment: str):
        self.directory = course.root / ".gradekit" / "releases" / assignment
        self._strippers: dict[str, Stripper] = {}

    def student_versions(self, variant: Variant) -> dict[str, NotebookNode]:
        """The variant's notebooks as released (solutions and hidden tests out, cells locked)."""
        out, fresh = {}, None
        language = variant.language
        params = json.dumps(variant.params, sort_keys=True, separators=(",", ":"))
        for name in variant.source.notebooks:
            digest = variant.source.digest(name, language)
            key = hashlib.sha256(f"{_renderer_version()}\0{language}\0{digest}\0{params}".encode()).hexdigest()
            path = self.directory / key[:2] / f"{key}.json.z"
            try:
                out[name] = from_dict(json.loads(zlib.decompress(path.read_bytes())))
                continue
            except (OSError, ValueError, zlib.error):
                pass
            if language not in self._strippers:
                self._strippers[language] = Stripper(language)
            fresh = fresh or variant.fresh_notebooks()   # stripping changes them: not the variant's own
            released = self._strippers[language].student_version(fresh[name])
            self._store(path, released)
            out[name] = released
        return out

    def _store(self, path: Path, nb: NotebookNode) -> None:
        from gradekit.files import atomic_write_bytes

        try:
            self.directory.parent.parent.mkdir(mode=0o700, exist_ok=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, zlib.compress(json.dumps(nb, separators=(",", ":")).encode(), 1))
        except OSError:  # a read-only course: strip again next time
            pass


_STRIPPER_VERSION = "nbgrader-0.9 LockCells ClearSolutions ClearOutput ComputeChecksums ClearHiddenTests"
_RENDERER: str | None = None


def _renderer_version() -> str:
    """What a release depends on besides its template and params: the release steps, jinja2,
    and gradekit's code that renders and strips (a new version of any gives new keys)."""
    global _RENDERER
    if _RENDERER is None:
        import jinja2

        digest = hashlib.sha256(f"{_STRIPPER_VERSION}\0{jinja2.__version__}".encode())
        here = Path(__file__).resolve().parent
        for module in ("template.py", "variant.py", "notebooks.py", "strip.py", "release.py",
                       "i18n/catalogs.py", "i18n/text.py"):
            digest.update((here / module).read_bytes())
        _RENDERER = digest.hexdigest()
    return _RENDERER


def answer_key(course: Course, assignment: str, student: str, out: Path, *, source=None,
               secret: bytes | None = None, language: str | None = None) -> list[Path]:
    """Write one student's notebooks with the solutions filled in (``source``, ``secret``,
    ``language``: those already at hand; by default loaded, the course's, the student's)."""
    from gradekit.template import AssignmentSource
    from gradekit.variant import build_variant

    source = source or AssignmentSource.load(course, assignment)
    variant = build_variant(course, source, student, secret, language)
    stripper = Stripper(variant.language)
    return write_notebooks(out, {name: stripper.answer_key(nb) for name, nb in variant.notebooks.items()})
