"""A student's variant: the seed from the course secret, the params, the notebooks.

    seed = HMAC-SHA256(secret, "<course_id>/<assignment>/<student_id>")

The variant is a pure function of (secret, course, assignment, student): the
grader rebuilds it from the student id under which a submission arrives and
never reads anything inside the submitted notebook to do so. The student's
language (``languages.csv``) picks the words the notebooks are rendered in;
the seed and the params never depend on it.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from gradekit.course import Course, require_id

if TYPE_CHECKING:  # pragma: no cover  (the seed alone must stay cheap to import)
    import nbformat

    from gradekit.authoring.template import AssignmentSource


def student_seed(secret: bytes, course_id: str, assignment: str, student: str) -> int:
    message = f"{course_id}/{assignment}/{student}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:16], "big")


@dataclass
class Variant:
    """One student's params and full notebooks (solutions and hidden parts included).

    The notebooks are rendered when first asked for: grading usually needs
    only the params and the student's release, which the release cache keeps.
    """

    assignment: str
    student: str
    seed: int
    params: dict
    source: AssignmentSource = field(repr=False, compare=False)
    language: str = "en"

    @cached_property
    def notebooks(self) -> dict[str, nbformat.NotebookNode]:
        return self.source.render(self.params, self.language)

    def fresh_notebooks(self) -> dict[str, nbformat.NotebookNode]:
        """The notebooks rendered anew, for a caller that changes them."""
        return self.source.render(self.params, self.language)


def build_variant(
    course: Course,
    source: AssignmentSource,
    student: str,
    secret: bytes | None = None,
    language: str | None = None,
    *,
    render: bool = True,
) -> Variant:
    """``student``'s variant, in ``language`` (default: the language the course sets for them);
    with ``render=False`` its notebooks are rendered when first used (a template error is
    raised then, not here)."""
    from gradekit.authoring.languages import language_of

    require_id("student", student)
    seed = student_seed(secret if secret is not None else course.secret(), course.course_id, source.name, student)
    language = language or language_of(course, student)
    variant = Variant(source.name, student, seed, source.params(seed), source, language)
    if render:
        variant.notebooks  # noqa: B018 - renders every cell now
    return variant
