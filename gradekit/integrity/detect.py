"""Finding the pairs: every student's material read once, the evidence of each kind weighed.

:func:`detect` writes nothing; ``gradekit integrity`` hands its findings to
:mod:`gradekit.integrity.report`, which writes ``reports/<a>/integrity.json``::

    {
      "assignment": "a", "students": 212, "seconds": 3.1,
      "pairs": [                                  # flagged pairs, strongest first; each pair once
        {"students": ["alice", "bob"],            # sorted
         "score": 87.5,                           # the sum of the evidence's strengths
         "evidence": [
           {"kind": "variant cells", "from": "alice", "by": "bob", "count": 3,
            "cells": ["nb/setup", ...], "checksums_only": [...], "strength": 60.0},
           {"kind": "answers", "from": "alice", "by": "bob", "count": 9,
            "answers": ["quiz/q1_weights", ...], "strength": 31.2},
           {"kind": "personal numbers", "from": "alice", "by": "bob", "count": 12,
            "where": ["nb/outputs"], "strength": 25.0},
           {"kind": "code", "count": 1, "strength": 61.3,  # cells that are copies, strongest first
            "cells": [{"cells": ["nb/exercise3", "nb/exercise3"], "weight": 66.6, "shared": 27,
                       "containment": 0.92, "score": 61.3,
                       "test": "rare passages"}]}]}],   # or "whole cell" (see gradekit/integrity/code.py)
      "public_numbers": [                         # one student each: the assignment's own example numbers
        {"student": "carol", "where": "nb/exercise2", "what": "...", "numbers": [0.25, 0.75]}],
      "unreadable": {"dave": ["quiz.ipynb: the file is empty"]},
      "skipped": ["skipped submitted/x y: not a valid student id"],
      "settings": {...}                           # the thresholds used
    }

Every piece of evidence also has "text", one sentence that says it ("bob's
notebook has 3 read-only cell(s) of alice's own variant").
"from" is the student whose cells, answers or numbers they are, "by" the one
whose submission carries them (code evidence has no direction); "count" is
how many cells, answers or numbers matched; "strength" is in bits beyond
chance for the variant kinds (:mod:`.variants`, a read-only cell counts 20)
and the cells' weight x containment for code (:mod:`.code`). ``gradekit
integrity --json`` prints the "pairs" list. Student ids in "students" are
sorted, and each pair appears once.

Nothing here reads the graded results: a submission is compared whether or
not it was graded, and whatever its score."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field

from gradekit.course import Course
from gradekit.errors import UsageError
from gradekit.integrity import code, variants
from gradekit.integrity.material import Handed, Personal, Reader
from gradekit.untrusted import is_plain_folder, submitted_students


@dataclass
class Findings:
    assignment: str
    students: list[str]
    pairs: list[dict] = field(default_factory=list)
    public_numbers: list[dict] = field(default_factory=list)
    unreadable: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0
    sides: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # pair -> cells side by side (HTML)
    skipped: list[str] = field(default_factory=list)  # submission folders left out, one line each
    handins: list[str] = field(default_factory=list)  # the exchange ledger's reports: impersonation, backdating

    def to_dict(self) -> dict:
        return {
            "assignment": self.assignment,
            "students": len(self.students),
            "seconds": round(self.seconds, 2),
            "pairs": self.pairs,
            "public_numbers": self.public_numbers,
            "unreadable": self.unreadable,
            "skipped": self.skipped,
            "handins": self.handins,
            "settings": settings(),
        }


def settings() -> dict:
    from gradekit.integrity.fingerprints import K, W

    return {
        "k": K,
        "window": W,
        "code_max_share": code.MAX_SHARE,
        "code_max_df": code.MAX_DF,
        "code_min_score": code.MIN_SCORE,
        "code_min_shared": code.MIN_SHARED,
        "code_nearly_whole": code.NEARLY_WHOLE,
        "code_min_whole": code.MIN_WHOLE,
        "min_bits": variants.MIN_BITS,
        "cell_bits": variants.CELL_BITS,
    }


def submitters(course: Course, assignment: str) -> tuple[list[str], list[str]]:
    """Every student with a submission folder for the assignment, and one line per folder left
    out (an invalid id, a symbolic link). No gradebook is needed: every folder counts."""
    base = course.root / "submitted"
    try:
        names = {entry.name for entry in os.scandir(base)} if is_plain_folder(base) else set()
    except OSError:
        names = set()
    return submitted_students(base, assignment, names)


def detect(course: Course, assignment: str, students: list[str] | None = None, jobs: int = 0) -> Findings:
    """Compare the submissions of ``students`` (default: everyone who submitted)."""
    started = time.monotonic()
    reader = Reader(course, assignment)
    skipped: list[str] = []
    if students is None:
        students, skipped = submitters(course, assignment)
    if not students:
        raise UsageError(f"nothing to compare: no submissions in submitted/*/{assignment}/")
    examples = variants.load_public_examples(reader.source.directory)
    personal, handed = read_class(reader, students, jobs)
    by_code, marks = code.code_evidence(handed)
    found: dict[tuple[str, str], list[dict]] = {}
    for part in (
        variants.variant_cells(personal, handed),
        variants.answers(personal, handed),
        variants.personal_numbers(personal, handed),
        by_code,
    ):
        for pair, evidence in part.items():
            found.setdefault(pair, []).extend(evidence)
    from gradekit.integrity.report import describe

    for evidence in found.values():
        for item in evidence:
            item["text"] = describe(item)
    pairs = [
        {"students": list(pair), "evidence": evidence, "score": round(sum(e["strength"] for e in evidence), 1)}
        for pair, evidence in found.items()
    ]
    pairs.sort(key=lambda p: (-p["score"], p["students"]))
    findings = Findings(
        assignment,
        students,
        pairs,
        variants.public_numbers(examples, personal, handed),
        {s: h.problems for s, h in handed.items() if h.problems},
        skipped=skipped,
    )
    findings.sides = side_by_side(reader, pairs, personal, handed, marks)
    from gradekit.exchange.ledger import handin_reports

    findings.handins = handin_reports(course, assignment)
    findings.seconds = time.monotonic() - started
    return findings


def side_by_side(
    reader: Reader,
    pairs: list[dict],
    personal: dict[str, Personal],
    handed: dict[str, Handed],
    marks: dict[tuple, set[int]],
) -> dict[tuple[str, str], list[dict]]:
    """For the report: each flagged pair's shared cells, with what they share marked."""
    sides: dict[tuple[str, str], list[dict]] = {}
    for pair in pairs:
        a, b = pair["students"]
        code_blocks, answer_blocks = [], []
        for evidence in pair["evidence"]:
            if evidence["kind"] == "code":
                for cells in evidence["cells"]:
                    ka, kb = (tuple(c.split("/", 1)) for c in cells["cells"])
                    shared = marks.get((a, b, ka, kb), set())
                    code_blocks.append(
                        {
                            side: _marked(reader, personal, handed, student, key, shared)
                            for side, student, key in (("left", a, ka), ("right", b, kb))
                        }
                    )
            elif evidence["kind"] == "answers":
                names = {tuple(name.split("/", 1)) for name in evidence["answers"]}
                for key in sorted({k for s in (a, b) for k in _cells_assigning(handed[s], names)}):
                    answer_blocks.append(
                        {side: _assigning(handed[student], key, names) for side, student in (("left", a), ("right", b))}
                    )
        sides[(a, b)] = code_blocks + answer_blocks
    return sides


def _marked(reader: Reader, personal, handed, student: str, key, shared: set[int]) -> dict:
    from gradekit.integrity.fingerprints import fingerprint

    source = handed[student].code.get(key, "")
    if not personal[student].common:  # read in a worker process: rebuild what was not sent back
        personal[student].common = reader.personal(student).common
    common = personal[student].common.get(key, frozenset())
    return {
        "student": student,
        "cell": "/".join(key),
        "source": source,
        "spans": fingerprint(source, common).spans(shared),
    }


def _cells_assigning(mine: Handed, names: set) -> list:
    return [
        key
        for key, source in mine.code.items()
        if any(re.search(rf"^\s*{re.escape(var)}\s*=", source, re.M) for nb, var in names if nb == key[0])
    ]


def _assigning(mine: Handed, key, names: set) -> dict:
    source = mine.code.get(key, "")
    spans = [
        m.span()
        for nb, var in names
        if nb == key[0]
        for m in re.finditer(rf"^\s*{re.escape(var)}\s*=.*$", source, re.M)
    ]
    return {"student": mine.student, "cell": "/".join(key), "source": source, "spans": spans}


def read_class(reader: Reader, students: list[str], jobs: int = 0) -> tuple[dict[str, Personal], dict[str, Handed]]:
    """Every student's variant and submission, in worker processes for a large class."""
    from gradekit.pool import fork_map

    jobs = jobs or min(os.cpu_count() or 1, max(1, len(students) // 100))
    if jobs == 1:
        return _read(reader, students)
    personal, handed = {}, {}
    # forked workers inherit the compiled templates; only student ids cross the pipe
    for p, h in fork_map(_read_part, reader, students, jobs):
        personal.update(p)
        handed.update(h)
    return ({s: personal[s] for s in students}, {s: handed[s] for s in students})


def _read_part(reader: Reader, students: list[str]):
    personal, handed = _read(reader, students)
    for me in personal.values():
        me.common = {}  # the parent rebuilds what the report needs (see _marked); no need to send it back
    return personal, handed


def _read(reader: Reader, students: list[str]) -> tuple[dict[str, Personal], dict[str, Handed]]:
    personal, handed = {}, {}
    for student in students:
        personal[student] = reader.personal(student)
        handed[student] = reader.handed(personal[student])
    return personal, handed
