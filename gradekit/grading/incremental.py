"""Deciding what needs grading: a digest per submission, and the results still valid.

A stored result is reused when its digest -- the submitted notebooks, the
assignment's version (its source, graders, reference and gradekit's own code)
and the student's seed -- is the one a grading now would record. So a run
killed half-way and started again ends where an uninterrupted run would,
without redoing the work, and a change to a grader regrades everyone.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from gradekit.course import Course
from gradekit.results import RESULTS_FILE, SubmissionResult, load
from gradekit.untrusted import submission_files

MAX_HASHED_BYTES = 64 << 20  # a notebook file larger than this is not read to hash it


def assignment_version(course: Course, assignment: str) -> str:
    """A hash of everything grading depends on besides the submission itself."""
    digest = hashlib.sha256(_code_version().encode())
    for base in (course.source_dir(assignment), course.graders_dir(assignment), course.solutions_dir(assignment)):
        for path in sorted(base.rglob("*")) if base.is_dir() else []:
            if (
                path.is_file() and "__pycache__" not in path.parts and not _qa_set(path, base) and path.suffix != ".mo"
            ):  # compiled from the .po beside it
                digest.update(str(path.relative_to(course.root)).encode())
                digest.update(path.read_bytes())
    settings = course.settings
    if settings is not None:  # the limits and stages the course sets change grades too
        digest.update(
            repr(
                sorted((k, repr(v)) for k, v in settings.trait_values().items() if k not in ("config", "parent", "log"))
            ).encode()
        )
    return digest.hexdigest()


def _qa_set(path: Path, base: Path) -> bool:
    """A file of the assignment's QA set (mistakes/, correct/): it grades no one."""
    return path.relative_to(base).parts[0] in ("mistakes", "correct")


_CODE_VERSION: str | None = None


def _code_version() -> str:
    """A hash of gradekit's own source and catalogs: a new gradekit regrades, as new graders do."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        package = Path(__file__).resolve().parents[1]  # gradekit/
        digest = hashlib.sha256()
        for path in sorted([*package.rglob("*.py"), *package.rglob("*.po")]):
            digest.update(path.read_bytes())
        _CODE_VERSION = digest.hexdigest()
    return _CODE_VERSION


def submission_digest(folder: Path, version: str, seed: int, language: str = "en") -> str:
    """Submission files + assignment version + the student's seed and language: equal means
    nothing changed (the language changes what the results say, not the grades).

    Only regular files are read (never a symbolic link, a FIFO or a device),
    and never past a size cap: the digest of a huge file is its size.
    """
    digest = hashlib.sha256(f"{version}/{seed}".encode() + (f"/{language}".encode() if language != "en" else b""))
    for name, path in submission_files(folder).items():
        digest.update(name.encode())
        try:
            size = path.lstat().st_size
            if size > MAX_HASHED_BYTES:
                digest.update(f"size:{size}".encode())
                continue
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
        except OSError:
            pass
    for name in ("timestamp.txt",):  # a new timestamp alone (a resubmission of the same file) counts
        path = folder / name
        try:
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= 4096:
                digest.update(path.read_bytes())
        except OSError:
            pass
    return digest.hexdigest()


def unchanged(course: Course, assignment: str, students: list[str]) -> dict[str, SubmissionResult]:
    """Earlier results whose submission, graders and variant are all unchanged."""
    from gradekit.authoring.languages import language_of
    from gradekit.authoring.variant import student_seed

    version = assignment_version(course, assignment)
    secret = course.secret()
    out = {}
    for student in students:
        old = load(course.autograded_dir(student, assignment) / RESULTS_FILE)
        if old is None:
            continue  # none, half-written or from another version: grade again
        seed = student_seed(secret, course.course_id, assignment, student)
        if hmac.compare_digest(
            old.digest,
            submission_digest(course.submitted_dir(student, assignment), version, seed, language_of(course, student)),
        ):
            out[student] = old
    return out
