"""Each graded hand-in kept as an attempt; the attempt that counts installed as the submission.

    .gradekit/attempts/<assignment>/<student>/<n>/submitted/    what was handed in, as collect writes it
    .gradekit/attempts/<assignment>/<student>/<n>/autograded/   its grading: notebooks and results.json
    .gradekit/attempts/<assignment>/<student>/<n>/feedback/     its feedback pages

``<n>`` is the hand-in's number (the ledger's: the student's n-th hand-in), not the graded attempt's
(a hand-in over the limit, or superseded, is never graded).

The attempt that counts (the policy's: the last, or the best) is copied to
``submitted/<student>/<assignment>/`` and ``autograded/<student>/<assignment>/``,
where ``autograde``, ``feedback``, formgrader and the class report find it, each
swapped in whole (a rename): a reader never sees half of one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ATTEMPTS = Path(".gradekit") / "attempts"


def folder(course, assignment: str, student: str, number: int) -> Path:
    """The attempt folder of the student's hand-in ``number``."""
    return course.root / ATTEMPTS / assignment / student / str(number)


def stage(course, entry, files: dict[str, bytes]) -> Path:
    """Write what the hand-in held (the ledger's copy) as its attempt's submission, with the time it
    counts at and its receipt, as gradekit's collect writes a submission; returns the attempt's folder."""
    base = folder(course, entry.assignment, entry.student, entry.number)
    target = base / "submitted"
    if target.exists():  # staged before a restart: the same files
        return base
    tmp = base / ".submitted"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    os.chmod(course.root / ATTEMPTS, 0o700)
    files = entry.installed_files(files)
    for rel, data in files.items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    os.rename(tmp, target)
    return base


def install(course, assignment: str, student: str, number: int) -> None:
    """Make the attempt of hand-in ``number`` the student's submission and grading of record."""
    base = folder(course, assignment, student, number)
    for part, dest in (
        ("submitted", course.submitted_dir(student, assignment)),
        ("autograded", course.autograded_dir(student, assignment)),
    ):
        swap(base / part, dest)


def swap(source: Path, dest: Path) -> None:
    """Replace the folder ``dest`` by a copy of ``source``, in two renames."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fresh, old = dest.with_name(f".{dest.name}.new"), dest.with_name(f".{dest.name}.old")
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    shutil.copytree(source, fresh)
    if dest.exists():
        os.rename(dest, old)
    os.rename(fresh, dest)
    shutil.rmtree(old, ignore_errors=True)
