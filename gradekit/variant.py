"""A student's variant: the seed from the course secret, the params, the notebooks.

    seed = HMAC-SHA256(secret, "<course_id>/<assignment>/<student_id>")

The variant is a pure function of (secret, course, assignment, student): the
grader rebuilds it from the student id under which a submission arrives and
never reads anything inside the submitted notebook to do so.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from .course import Course, check_id

if TYPE_CHECKING:  # pragma: no cover  (the seed alone must stay cheap to import)
    import nbformat

    from .template import AssignmentSource


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
    source: "AssignmentSource" = field(repr=False, compare=False)

    @cached_property
    def notebooks(self) -> dict[str, "nbformat.NotebookNode"]:
        return self.source.render(self.params)

    def fresh_notebooks(self) -> dict[str, "nbformat.NotebookNode"]:
        """The notebooks rendered anew, for a caller that changes them."""
        return self.source.render(self.params)


def build_variant(course: Course, source: "AssignmentSource", student: str, secret: bytes | None = None, *,
                  render: bool = True) -> Variant:
    """The student's variant; with ``render=False`` its notebooks are rendered when first used
    (a template error is raised then, not here)."""
    check_id("student", student)
    seed = student_seed(secret if secret is not None else course.secret(), course.course_id, source.name, student)
    variant = Variant(source.name, student, seed, source.params(seed), source)
    if render:
        variant.notebooks  # noqa: B018 - renders every cell now
    return variant
