"""From a variant to what a student receives: nbgrader's release steps, in nbgrader's order.

The order follows nbgrader's ``generate_assignment`` converter:

    LockCells -> ClearSolutions -> ClearOutput -> ComputeChecksums
      -> (SaveCells, once per assignment: registers notebooks and grade cells)
      -> ClearHiddenTests -> ComputeChecksums

ComputeChecksums must run after ClearSolutions (the checksum of a solution
cell is the checksum of its stub) and again after ClearHiddenTests.
The answer key is the variant with its solutions kept: the same cells, ids
and locks as the release, only the solution regions filled in.

The steps are :class:`~gradekit.release.stripper.Stripper`'s; the registration
of the assignment's structure goes to the gradebook
(:mod:`gradekit.release.registration`); each student's stripped release is
kept by :class:`~gradekit.release.cache.ReleaseCache` for grading.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from gradekit.atomic import write_notebooks
from gradekit.authoring.variant import Variant
from gradekit.course import Course
from gradekit.release.cache import ReleaseCache
from gradekit.release.stripper import Stripper

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.authoring.template import AssignmentSource


def register(course: Course, variant: Variant, stripper: Stripper) -> None:
    """Record the assignment, its notebooks and grade cells in nbgrader's gradebook.

    :mod:`gradekit.release.registration` does it with sqlite3 where it can (and does
    nothing where the gradebook already holds it); the notebooks it leaves go
    through nbgrader's own SaveCells.
    """
    from gradekit.release.registration import register as register_fast
    from gradekit.release.registration import save_cells

    versions = {name: stripper.registration_version(nb) for name, nb in variant.notebooks.items()}
    left = register_fast(course, variant.assignment, versions)
    if left:
        save_cells(course, variant.assignment, {name: versions[name] for name in left})


def generate(course: Course, assignment: str, students: list[str]) -> list[Path]:
    """Write release/<student>/<assignment>/ for each student; register the assignment."""
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    source = AssignmentSource.load(course, assignment)
    stripper = Stripper()
    secret = course.secret()
    if students:
        course.pin_secret(secret)  # from now on, students hold numbers made with it
    register(course, build_variant(course, source, students[0] if students else "instructor", secret), stripper)
    from gradekit.pool import fork_map

    jobs = min(os.cpu_count() or 1, max(1, len(students) // 50))
    # forked workers inherit the compiled templates; only student ids cross the pipe
    parts = fork_map(_release_part, (course, source, secret), students, jobs)
    return [path for part in parts for path in part]


def _release_part(state: tuple[Course, AssignmentSource, bytes], students: list[str]) -> list[Path]:
    return _release_students(*state, students)


def _release_students(course: Course, source: AssignmentSource, secret: bytes, students: list[str]) -> list[Path]:
    from gradekit.authoring.variant import build_variant

    cache = ReleaseCache(course, source.name)
    written = []
    for student in students:
        variant = build_variant(course, source, student, secret, render=False)
        written += write_notebooks(course.release_dir(student, source.name), cache.student_versions(variant))
    return written


def write_answer_key(
    course: Course,
    assignment: str,
    student: str,
    out: Path,
    *,
    source=None,
    secret: bytes | None = None,
    language: str | None = None,
) -> list[Path]:
    """Write one student's notebooks with the solutions filled in (``source``, ``secret``,
    ``language``: those already at hand; by default loaded, the course's, the student's)."""
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    source = source or AssignmentSource.load(course, assignment)
    variant = build_variant(course, source, student, secret, language)
    stripper = Stripper(variant.language)
    return write_notebooks(out, {name: stripper.answer_key(nb) for name, nb in variant.notebooks.items()})
