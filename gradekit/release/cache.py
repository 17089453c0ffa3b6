"""Each student's released notebooks, stripped once and kept for grading.

Grading needs each student's release to restore locked cells;
:class:`ReleaseCache` keeps what ``generate`` stripped under
``.gradekit/releases/`` (the instructor's, 0700), keyed by the digest of the
rendered notebook, so a grading process strips only a variant nobody has
released yet.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from gradekit.authoring.variant import Variant
from gradekit.course import Course
from gradekit.notebook.nodes import from_dict
from gradekit.release.stripper import Stripper

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode


class ReleaseCache:
    """Each student's released notebooks, kept where only the instructor can read them.

    Keyed by what the release is a function of: the notebook's template (its
    digest, with the translations of the student's language), the student's params, and the code
    that renders and strips it (jinja2's version, gradekit's template and release modules). A changed
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
            fresh = fresh or variant.fresh_notebooks()  # stripping changes them: not the variant's own
            released = self._strippers[language].student_version(fresh[name])
            # the language the student reads, for what gradekit says about the notebook in their Lab
            released.metadata["gradekit"] = {"language": language}
            self._store(path, released)
            out[name] = released
        return out

    def _store(self, path: Path, nb: NotebookNode) -> None:
        from gradekit.atomic import atomic_write_bytes

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
        here = Path(__file__).resolve().parents[1]  # gradekit/
        for module in (
            "authoring/template.py",
            "authoring/variant.py",
            "notebook/nodes.py",
            "release/preprocessors.py",
            "release/stripper.py",
            "release/cache.py",
            "i18n/catalogs.py",
            "i18n/text.py",
        ):
            digest.update((here / module).read_bytes())
        _RENDERER = digest.hexdigest()
    return _RENDERER
