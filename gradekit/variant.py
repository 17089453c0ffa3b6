"""A student's variant: the seed from the course secret, the params, the notebooks.

    seed = HMAC-SHA256(secret, "<course_id>/<assignment>/<student_id>")

The variant is a pure function of (secret, course, assignment, student): the
grader rebuilds it from the student id under which a submission arrives and
never reads anything inside the submitted notebook to do so.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
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
    """One student's full notebooks (solutions and hidden parts included)."""

    assignment: str
    student: str
    seed: int
    params: dict
    notebooks: dict[str, "nbformat.NotebookNode"]


def build_variant(course: Course, source: "AssignmentSource", student: str, secret: bytes | None = None) -> Variant:
    check_id("student", student)
    seed = student_seed(secret if secret is not None else course.secret(), course.course_id, source.name, student)
    params = source.params(seed)
    return Variant(source.name, student, seed, params, source.render(params))
