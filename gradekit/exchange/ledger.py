"""The instructor's record of every hand-in: who, when, what, which attempt, its receipt.

``.gradekit/handins.db`` (SQLite, the instructor's alone: 0600 in a 0700 folder).
Every folder of inbound/ is recorded the first time anyone of gradekit's sees it
-- ``nbgrader collect`` through gradekit's collect class, or the live service a
second after it arrives -- with what was in it (the files' SHA-256), when it
arrived (its latest change time) and the time it counts at, the student it
counts for, its attempt number and its receipt; or why it was refused. A later
look that finds it changed, or gone, says so: the first sight is what was
handed in.

What a hand-in held at its first sight is kept beside the ledger
(``.gradekit/handins/<assignment>/<name>@<inode>/``), refused ones too: that copy is
what gets collected and graded, whatever happens to the folder in inbound/ afterwards.

Refusals, backdated timestamps and changes are the ledger's *reports*: one line
each, which ``autograde``, ``serve``, ``integrity`` and the class report show.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from gradekit.exchange import receipts
from gradekit.exchange.filesystem.inbound import IMPERSONATION, Handin
from gradekit.untrusted import RECEIPT_FILE

LEDGER = Path(".gradekit") / "handins.db"
KEPT = Path(".gradekit") / "handins"  # what each hand-in held at its first sight: <assignment>/<name>@<inode>/

_SCHEMA = """
CREATE TABLE IF NOT EXISTS handins (
    assignment TEXT NOT NULL, name TEXT NOT NULL, ino INTEGER NOT NULL,
    named TEXT NOT NULL, account TEXT NOT NULL, student TEXT,
    arrived TEXT, claimed TEXT, counted TEXT, sha256 TEXT,
    attempt INTEGER, receipt TEXT,
    problem TEXT, kind TEXT,
    first_seen TEXT NOT NULL, changed TEXT, gone TEXT, graded TEXT,
    fate TEXT, score REAL,
    PRIMARY KEY (assignment, name, ino)
)
"""


@dataclass
class Entry:
    """One hand-in as the ledger holds it."""

    assignment: str
    name: str
    ino: int
    named: str
    account: str
    student: str | None
    arrived: str | None
    claimed: str | None
    counted: str | None
    sha256: str | None
    attempt: int | None
    receipt: str | None
    problem: str | None
    kind: str | None
    first_seen: str
    changed: str | None
    gone: str | None
    graded: str | None  # when what became of it was recorded (gradekit serve)
    fate: str | None  # what serve did with it: graded, superseded, over the limit
    score: float | None  # its score, when graded
    new: bool = False  # first seen by this look

    @property
    def accepted(self) -> bool:
        return self.problem is None

    def installed_files(self, files: dict[str, bytes]) -> dict[str, bytes]:
        """What a collected submission holds: the files kept at first sight, the trusted time as its
        ``timestamp.txt``, and its receipt beside them (read back by untrusted.read_receipt)."""
        import json

        meta = {
            "handin": self.name,  # the exchange's name for it (the hub exchange files its feedback by it)
            "receipt": self.receipt,
            "attempt": self.attempt,
            "arrived": self.arrived,
            "claimed": self.claimed,
            "counted": self.counted,
            "handed_in_by": self.account,
        }
        return {
            **files,
            "timestamp.txt": (self.counted or "").encode() + b" UTC",
            RECEIPT_FILE: json.dumps(meta, indent=1).encode(),
        }


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat(sep=" ", timespec="microseconds")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Ledger:
    """The ledger of one course; a context manager (one connection, transactions per hand-in)."""

    def __init__(self, course):
        self.course = course
        path = course.root / LEDGER
        path.parent.mkdir(mode=0o700, exist_ok=True)
        fresh = not path.exists()
        self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
        if fresh:
            os.chmod(path, 0o600)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(_SCHEMA)
        self.tolerance = float(getattr(course.settings, "timestamp_tolerance", 60.0) or 60.0)
        self.hub = str(getattr(course.settings, "exchange", "") or "filesystem") == "hub"

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- recording ------------------------------------------------------------------------
    def see(self, handin: Handin) -> Entry:
        """Record ``handin`` if this is its first sight (its attempt number and receipt then);
        otherwise note whether it changed since. Returns what the ledger holds."""
        key = (handin.assignment, handin.name, handin.ino)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            old = self._get(*key)
            if old is not None:
                if old.accepted and handin.accepted and old.sha256 != handin.sha256 and not old.changed:
                    self.db.execute(
                        "UPDATE handins SET changed = ? WHERE assignment = ? AND name = ? AND ino = ?",
                        (_iso(handin.arrived), *key),
                    )
                    old.changed = _iso(handin.arrived)
                self.db.execute("COMMIT")
                return old
            counted = handin.counted(self.tolerance)
            attempt = receipt = None
            if handin.accepted:
                attempt = (
                    1
                    + self.db.execute(
                        "SELECT COUNT(*) FROM handins WHERE assignment = ? AND student = ? AND problem IS NULL",
                        (handin.assignment, handin.student),
                    ).fetchone()[0]
                )
                assert counted is not None and handin.student is not None
                receipt = receipts.make(
                    self.course.secret(),
                    self.course.course_id,
                    receipts.Receipt(
                        handin.student, handin.assignment, attempt, counted.replace(microsecond=0), handin.sha256
                    ),
                )
            self.db.execute(
                "INSERT INTO handins (assignment, name, ino, named, account, student, arrived, claimed, counted, "
                "sha256, attempt, receipt, problem, kind, first_seen) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    *key,
                    handin.named,
                    handin.account,
                    handin.student,
                    _iso(handin.arrived),
                    _iso(handin.claimed),
                    _iso(counted),
                    handin.sha256 if handin.accepted else None,
                    attempt,
                    receipt,
                    handin.problem,
                    handin.kind or None,
                    _iso(_now()),
                ),
            )
            self._keep(handin)  # before the commit: a recorded hand-in always has its copy
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        entry = self._get(*key)
        assert entry is not None
        entry.new = True
        return entry

    def _folder(self, assignment: str, name: str, ino: int) -> Path:
        return self.course.root / KEPT / assignment / f"{name}@{ino}"

    def _keep(self, handin: Handin) -> None:
        import shutil
        import tempfile

        final = self._folder(handin.assignment, handin.name, handin.ino)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.course.root / KEPT, 0o700)
        tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=".keep-"))
        try:
            for rel, data in handin.files.items():
                target = tmp / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            if final.exists():  # a copy left by a look that did not commit
                shutil.rmtree(final)
            os.rename(tmp, final)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)

    def kept(self, entry: Entry) -> dict[str, bytes]:
        """What the hand-in held when it was first seen."""
        folder = self._folder(entry.assignment, entry.name, entry.ino)
        return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

    def gone(self, assignment: str, present: set[str]) -> list[Entry]:
        """Mark the accepted hand-ins no longer in inbound/ (deleted or renamed since)."""
        out = []
        for entry in self.entries(assignment):
            if entry.accepted and entry.name not in present and not entry.gone:
                self.db.execute(
                    "UPDATE handins SET gone = ? WHERE assignment = ? AND name = ? AND ino = ?",
                    (_iso(_now()), entry.assignment, entry.name, entry.ino),
                )
                entry.gone = _iso(_now())
                out.append(entry)
        return out

    def settle(self, entry: Entry, fate: str, score: float | None = None) -> None:
        """Record what became of an accepted hand-in (gradekit serve): "graded" (with its score),
        "superseded" (a newer one was graded instead), "over the limit" (no attempts left)."""
        entry.fate, entry.score, entry.graded = fate, score, _iso(_now())
        self.db.execute(
            "UPDATE handins SET fate = ?, score = ?, graded = ? WHERE assignment = ? AND name = ? AND ino = ?",
            (fate, score, entry.graded, entry.assignment, entry.name, entry.ino),
        )

    def unsettled(self, assignments: list[str]) -> list[Entry]:
        """Accepted hand-ins nobody graded yet, oldest first: what a restarted service takes up."""
        marks = ",".join("?" * len(assignments))
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM handins WHERE assignment IN ({marks}) AND problem IS NULL "
            "AND fate IS NULL ORDER BY counted, first_seen",
            assignments,
        ).fetchall()
        return [Entry(*row) for row in rows]

    def graded_attempts(self, assignment: str, student: str) -> list[Entry]:
        """The student's graded hand-ins of ``assignment``, in the order they count (their attempts)."""
        return [e for e in self.entries(assignment, student) if e.fate == "graded"]

    # -- reading --------------------------------------------------------------------------
    def _get(self, assignment: str, name: str, ino: int) -> Entry | None:
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM handins WHERE assignment = ? AND name = ? AND ino = ?", (assignment, name, ino)
        ).fetchone()
        return Entry(*row) if row else None

    def entries(self, assignment: str, student: str | None = None) -> list[Entry]:
        sql = f"SELECT {_COLUMNS} FROM handins WHERE assignment = ?"
        args: tuple = (assignment,)
        if student is not None:
            sql, args = sql + " AND student = ?", (assignment, student)
        return [Entry(*row) for row in self.db.execute(sql + " ORDER BY counted, first_seen", args)]

    def find(self, receipt: str) -> Entry | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM handins WHERE receipt = ?", (receipt,)).fetchone()
        return Entry(*row) if row else None

    def report(self, entry: Entry) -> list[str]:
        """What is worth the instructor's attention about ``entry``, a line each (:func:`report_lines`)."""
        return report_lines(entry, self.tolerance, self.hub)

    def reports(self, assignment: str) -> list[str]:
        """One line for every hand-in of ``assignment`` that was refused, backdated, changed or removed."""
        return [line for entry in self.entries(assignment) for line in self.report(entry)]


def handin_reports(course, assignment: str) -> list[str]:
    """What the ledger says about this assignment's hand-ins, a line each: one handed in under another
    student's name (both accounts named), a backdated timestamp, a change or removal after handing
    in; none when nothing came through the exchange."""
    if not (course.root / LEDGER).exists():
        return []
    with Ledger(course) as ledger:
        return ledger.reports(assignment)


_COLUMNS = (
    "assignment, name, ino, named, account, student, arrived, claimed, counted, sha256, attempt, receipt, "
    "problem, kind, first_seen, changed, gone, graded, fate, score"
)


def place(entry: Entry, hub: bool = False) -> str:
    """Where a hand-in was handed in, for a line: its folder of inbound/, or its number in the hub exchange."""
    return f"hand-in {entry.ino} of the hub exchange" if hub else f"inbound/{entry.name}"


def report_lines(entry: Entry, tolerance: float, hub: bool = False) -> list[str]:
    """What is worth the instructor's attention about one hand-in, a line each (``hub``: one of the hub
    exchange, whose hand-ins are numbered and handed in by hub users)."""
    where = place(entry, hub)
    if entry.kind == "impersonation":
        owner = entry.account + (f" ({entry.student})" if entry.student else "")
        if hub:
            return [
                f"{IMPERSONATION}: {where} is named for {entry.named} but was handed in by the hub user {owner}: "
                f"refused, it counts for nobody ({entry.named}'s own hand-ins are untouched)"
            ]
        return [
            f"{IMPERSONATION}: {where} is named for {entry.named} but was handed in by the account {owner}: "
            "refused, kept aside in .gradekit/refused/"
        ]
    if not entry.accepted:
        return [f"not collected: {where}: {entry.problem}"]
    lines = []
    if entry.claimed and entry.arrived:
        claimed, arrived = dt.datetime.fromisoformat(entry.claimed), dt.datetime.fromisoformat(entry.arrived)
        if abs((arrived - claimed).total_seconds()) > tolerance:
            lines.append(
                f"timestamp.txt does not say when it was handed in: {entry.student}'s {where} says "
                f"{claimed:%Y-%m-%d %H:%M:%S} UTC, it arrived at {arrived:%Y-%m-%d %H:%M:%S} UTC: "
                "the time it arrived counts"
            )
    if entry.changed:
        lines.append(
            f"changed after it was handed in: {entry.student}'s {where} (attempt {entry.attempt}) "
            f"changed at {entry.changed[:19]} UTC: what was handed in at {(entry.counted or '')[:19]} counts"
        )
    if entry.gone:
        lines.append(
            f"removed from the exchange after it was handed in: {entry.student}'s {where} "
            f"(attempt {entry.attempt}), gone by {entry.gone[:19]} UTC"
        )
    return lines
