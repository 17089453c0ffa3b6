"""Hand-ins in, through the course's exchange: ``gradekit collect ASSIGNMENT``, on either exchange.

What ``nbgrader collect`` does with gradekit's collect class (gradekit.exchange.filesystem.collect), through
the exchange interface (gradekit.exchange.base) instead of the exchange's folders, so that a course
on the hub exchange collects too: every hand-in the exchange holds is read and judged by it (who
handed it in and when, as the exchange vouches for it), recorded in the ledger at its first sight
(its hand-in number, its receipt, or why it is refused), and each student's latest accepted
hand-in (with a ``due`` date: the latest on time) is installed in submitted/<student>/<assignment>/ --
what the ledger kept of it, with the time it counts at as ``timestamp.txt`` and its receipt beside
it, 0750/0640, swapped in whole. ``gradekit autograde`` grades that, and ``gradekit
release-feedback`` gives the pages back through the same exchange.

Not while ``gradekit serve`` runs on the course: it takes each hand-in in itself and installs the
attempt that counts.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course


@dataclass
class Collected:
    """What a collect did: the students whose submission it installed (or found installed already), and
    a line for everything the instructor should read (refusals, backdated or changed hand-ins)."""

    installed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def collect(course: Course, assignment: str, due: dt.datetime | None = None) -> Collected:
    """Take ``assignment``'s hand-ins in from the course's exchange (see the module's docstring)."""
    from gradekit.errors import UsageError
    from gradekit.exchange.exchanges import exchange_of
    from gradekit.exchange.ledger import Entry, Ledger

    course.source_of(assignment)
    exchange = exchange_of(course)
    out = Collected()
    try:
        problem = exchange.ready()
        if problem:
            raise UsageError(problem)
        with course.lock("serve"), Ledger(course) as ledger:
            handins = exchange.look(None, [assignment])
            for handin in handins:
                entry = ledger.see(handin)
                if entry.new or entry.changed:
                    out.lines += ledger.report(entry)
            if exchange.kind == "filesystem":  # a folder of inbound/ removed since it was handed in
                for entry in ledger.gone(assignment, {h.ref for h in handins}):
                    out.lines += ledger.report(entry)
            chosen: dict[str, Entry] = {}
            for entry in ledger.entries(assignment):
                if not entry.accepted or entry.student is None or not entry.counted:
                    continue
                if due is not None and dt.datetime.fromisoformat(entry.counted) > due:
                    continue
                chosen[entry.student] = entry  # entries come oldest first: the latest stays
            for student, entry in sorted(chosen.items()):
                dest = course.submitted_dir(student, assignment)
                if _holds(dest, entry):
                    out.unchanged.append(student)
                    continue
                install(dest, entry.installed_files(ledger.kept(entry)))
                out.installed.append(student)
    finally:
        exchange.close()
    return out


def _holds(dest: Path, entry) -> bool:
    """Whether ``dest`` is this very hand-in, installed before."""
    from gradekit.exchange.ledger import ref_of
    from gradekit.exchange.receipts import read_receipt

    return ref_of(dest) == entry.ref and read_receipt(dest).receipt == entry.receipt


def install(dest: Path, files: dict[str, bytes]) -> None:
    """``files`` as the folder ``dest`` (0750, its files 0640), swapped in whole."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fresh, old = dest.with_name(f".{dest.name}.new"), dest.with_name(f".{dest.name}.old")
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    os.mkdir(fresh, 0o750)
    for rel, data in files.items():
        target = fresh / rel
        target.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o640)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    if dest.exists():
        os.rename(dest, old)
    os.rename(fresh, dest)
    shutil.rmtree(old, ignore_errors=True)
