"""The instructor's record of every hand-in: who, when, what, its number, its receipt.

``.gradekit/handins.db`` (SQLite, the instructor's alone: 0600 in a 0700 folder).
Every hand-in is recorded the first time anyone of gradekit's sees it -- ``nbgrader
collect`` through gradekit's collect class, ``gradekit collect``, or the live service a
second after it arrives -- keyed by its exchange's reference (:class:`HandinRef`), with
what was in it (the files' SHA-256), when it arrived and the time it counts at, the
student it counts for, its number (the student's first, second, ... accepted hand-in of
the assignment) and its receipt; or why it was refused. A later look that finds it
changed, or gone, says so: the first sight is what was handed in.

What a hand-in held at its first sight is kept beside the ledger
(``.gradekit/handins/<assignment>/<folder>/``), refused ones too: that copy is what gets
collected and graded, whatever happens to it in the exchange afterwards.

Refusals, backdated timestamps and changes are the ledger's *reports*: one line
each, which ``autograde``, ``serve``, ``integrity`` and the class report show.

A hand-in's *number* counts the student's hand-ins; a graded *attempt* (``gradekit serve``'s
"attempt 2 of 3") counts those that were graded: the two are named apart everywhere.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from gradekit.exchange import receipts
from gradekit.exchange.handin import IMPERSONATION, Handin, HandinRef
from gradekit.exchange.receipts import RECEIPT_FILE, read_receipt

LEDGER = Path(".gradekit") / "handins.db"
KEPT = Path(".gradekit") / "handins"  # what each hand-in held at its first sight: <assignment>/<folder>/

_SCHEMA = """
CREATE TABLE IF NOT EXISTS handins (
    assignment TEXT NOT NULL, ref TEXT NOT NULL, place TEXT NOT NULL, kept TEXT NOT NULL,
    named TEXT NOT NULL, account TEXT NOT NULL, student TEXT,
    arrived TEXT, claimed TEXT, counted TEXT, sha256 TEXT,
    number INTEGER, receipt TEXT,
    problem TEXT, kind TEXT,
    first_seen TEXT NOT NULL, changed TEXT, gone TEXT, graded TEXT,
    fate TEXT, score REAL,
    PRIMARY KEY (assignment, ref)
)
"""
_COLUMNS = (
    "assignment, ref, place, kept, named, account, student, arrived, claimed, counted, sha256, number, receipt, "
    "problem, kind, first_seen, changed, gone, graded, fate, score"
)


@dataclass(frozen=True)
class Entry:
    """One hand-in as the ledger holds it."""

    assignment: str
    ref: HandinRef
    kept: str  # its folder of .gradekit/handins/<assignment>/
    named: str
    account: str
    student: str | None
    arrived: str | None
    claimed: str | None
    counted: str | None
    sha256: str | None
    number: int | None  # the student's how-manieth accepted hand-in of the assignment (None: refused)
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

    @classmethod
    def _of(cls, row: tuple) -> Entry:
        assignment, ref, place, *rest = row
        return cls(assignment, HandinRef.parse(ref, place), *rest)

    @property
    def accepted(self) -> bool:
        return self.problem is None

    def installed_files(self, files: dict[str, bytes]) -> dict[str, bytes]:
        """What a collected submission holds: the files kept at first sight, the trusted time as its
        ``timestamp.txt``, and its receipt beside them (read back by receipts.read_receipt and
        :func:`ref_of`)."""
        meta = {
            "handin": str(self.ref),  # the exchange's reference: feedback goes back for this hand-in
            "place": self.ref.place,
            "receipt": self.receipt,
            "number": self.number,
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


def ref_of(submission: Path) -> HandinRef | None:
    """The reference of the hand-in a collected submission (or a graded attempt's) was installed from:
    its receipt.json says (:meth:`Entry.installed_files`); None when it says none."""
    found = read_receipt(Path(submission))
    try:
        return HandinRef.parse(found.handin, found.place) if found.handin else None
    except ValueError:
        return None


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat(sep=" ", timespec="microseconds")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _folder_name(ref: HandinRef) -> str:
    """The folder of .gradekit/handins/<assignment>/ a hand-in's files are kept in."""
    if ref.exchange == "filesystem":  # "<inode>/<name>": kept as "<name>@<inode>", as it always was
        ino, _sep, name = ref.key.partition("/")
        return f"{name}@{ino}"
    return f"{ref.exchange}-{ref.key}"


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
        _migrate(self.db, str(getattr(course.settings, "exchange", "") or "filesystem"))
        self.db.execute(_SCHEMA)
        self.tolerance = float(getattr(course.settings, "timestamp_tolerance", 60.0) or 60.0)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- recording ------------------------------------------------------------------------
    def see(self, handin: Handin) -> Entry:
        """Record ``handin`` if this is its first sight (its number and receipt then);
        otherwise note whether it changed since. Returns what the ledger holds."""
        key = (handin.assignment, str(handin.ref))
        self.db.execute("BEGIN IMMEDIATE")
        try:
            old = self._get(*key)
            if old is not None:
                if old.accepted and handin.accepted and old.sha256 != handin.sha256 and not old.changed:
                    self.db.execute(
                        "UPDATE handins SET changed = ? WHERE assignment = ? AND ref = ?", (_iso(handin.arrived), *key)
                    )
                    old = replace(old, changed=_iso(handin.arrived))
                self.db.execute("COMMIT")
                return old
            counted = handin.counted(self.tolerance)
            number = receipt = None
            if handin.accepted:
                number = (
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
                        handin.student, handin.assignment, number, counted.replace(microsecond=0), handin.sha256
                    ),
                )
            kept = _folder_name(handin.ref)
            self.db.execute(
                "INSERT INTO handins (assignment, ref, place, kept, named, account, student, arrived, claimed, "
                "counted, sha256, number, receipt, problem, kind, first_seen) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    handin.assignment,
                    str(handin.ref),
                    handin.ref.place,
                    kept,
                    handin.named,
                    handin.account,
                    handin.student,
                    _iso(handin.arrived),
                    _iso(handin.claimed),
                    _iso(counted),
                    handin.sha256 if handin.accepted else None,
                    number,
                    receipt,
                    handin.problem,
                    handin.kind or None,
                    _iso(_now()),
                ),
            )
            self._keep(handin.assignment, kept, handin.files)  # before the commit: a recorded hand-in has its copy
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        entry = self._get(*key)
        assert entry is not None
        return replace(entry, new=True)

    def _folder(self, assignment: str, kept: str) -> Path:
        return self.course.root / KEPT / assignment / kept

    def _keep(self, assignment: str, kept: str, files) -> None:
        import shutil
        import tempfile

        final = self._folder(assignment, kept)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.course.root / KEPT, 0o700)
        tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=".keep-"))
        try:
            for rel, data in files.items():
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
        folder = self._folder(entry.assignment, entry.kept)
        return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

    def kept_path(self, entry: Entry) -> Path:
        """Where what the hand-in held is kept, relative to the course."""
        return KEPT / entry.assignment / entry.kept

    def gone(self, assignment: str, present: set[HandinRef]) -> list[Entry]:
        """Mark the accepted hand-ins of ``assignment`` no longer ``present`` in the exchange (deleted or
        renamed since)."""
        out = []
        for entry in self.entries(assignment):
            if entry.accepted and entry.ref not in present and not entry.gone:
                when = _iso(_now())
                self.db.execute(
                    "UPDATE handins SET gone = ? WHERE assignment = ? AND ref = ?",
                    (when, entry.assignment, str(entry.ref)),
                )
                out.append(replace(entry, gone=when))
        return out

    def settle(self, entry: Entry, fate: str, score: float | None = None) -> Entry:
        """Record what became of an accepted hand-in (gradekit serve): "graded" (with its score),
        "superseded" (a newer one was graded instead), "over the limit" (no attempts left)."""
        settled = replace(entry, fate=fate, score=score, graded=_iso(_now()))
        self.db.execute(
            "UPDATE handins SET fate = ?, score = ?, graded = ? WHERE assignment = ? AND ref = ?",
            (fate, score, settled.graded, entry.assignment, str(entry.ref)),
        )
        return settled

    def unsettled(self, assignments: list[str]) -> list[Entry]:
        """Accepted hand-ins nobody graded yet, oldest first: what a restarted service takes up."""
        marks = ",".join("?" * len(assignments))
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM handins WHERE assignment IN ({marks}) AND problem IS NULL "
            "AND fate IS NULL ORDER BY counted, first_seen",
            assignments,
        ).fetchall()
        return [Entry._of(row) for row in rows]

    def graded_attempts(self, assignment: str, student: str) -> list[Entry]:
        """The student's graded hand-ins of ``assignment``, in the order they count (their attempts)."""
        return [e for e in self.entries(assignment, student) if e.fate == "graded"]

    # -- reading --------------------------------------------------------------------------
    def _get(self, assignment: str, ref: str) -> Entry | None:
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM handins WHERE assignment = ? AND ref = ?", (assignment, ref)
        ).fetchone()
        return Entry._of(row) if row else None

    def get(self, assignment: str, ref: HandinRef) -> Entry | None:
        return self._get(assignment, str(ref))

    def entries(self, assignment: str, student: str | None = None) -> list[Entry]:
        sql = f"SELECT {_COLUMNS} FROM handins WHERE assignment = ?"
        args: tuple = (assignment,)
        if student is not None:
            sql, args = sql + " AND student = ?", (assignment, student)
        return [Entry._of(row) for row in self.db.execute(sql + " ORDER BY counted, first_seen", args)]

    def find(self, receipt: str) -> Entry | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM handins WHERE receipt = ?", (receipt,)).fetchone()
        return Entry._of(row) if row else None

    def report(self, entry: Entry) -> list[str]:
        """What is worth the instructor's attention about ``entry``, a line each (:func:`report_lines`)."""
        return report_lines(entry, self.tolerance)

    def reports(self, assignment: str) -> list[str]:
        """One line for every hand-in of ``assignment`` that was refused, backdated, changed or removed."""
        return [line for entry in self.entries(assignment) for line in self.report(entry)]


def _migrate(db: sqlite3.Connection, exchange: str) -> None:
    """A ledger written before hand-ins had references (keyed by a folder's name and inode, the hub's
    number riding in the inode) becomes this one, every record and kept folder as it was."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(handins)")}
    if "ino" not in columns:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("ALTER TABLE handins RENAME TO handins_before_refs")
        db.execute(_SCHEMA)
        rows = db.execute(
            "SELECT assignment, name, ino, named, account, student, arrived, claimed, counted, sha256, attempt, "
            "receipt, problem, kind, first_seen, changed, gone, graded, fate, score FROM handins_before_refs"
        ).fetchall()
        for assignment, name, ino, *rest in rows:
            if exchange == "hub":
                ref = HandinRef("hub", str(ino), f"record {ino} of the hub exchange")
            else:
                ref = HandinRef("filesystem", f"{ino}/{name}", f"inbound/{name}")
            db.execute(
                f"INSERT INTO handins ({_COLUMNS}) VALUES ({','.join('?' * 21)})",
                (assignment, str(ref), ref.place, f"{name}@{ino}", *rest),
            )
        db.execute("DROP TABLE handins_before_refs")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def handin_reports(course, assignment: str) -> list[str]:
    """What the ledger says about this assignment's hand-ins, a line each: one handed in under another
    student's name (both accounts named), a backdated timestamp, a change or removal after handing
    in; none when nothing came through the exchange."""
    if not (course.root / LEDGER).exists():
        return []
    with Ledger(course) as ledger:
        return ledger.reports(assignment)


def report_lines(entry: Entry, tolerance: float) -> list[str]:
    """What is worth the instructor's attention about one hand-in, a line each."""
    where = entry.ref.place
    if entry.kind == "impersonation":
        owner = entry.account + (f" ({entry.student})" if entry.student else "")
        if entry.ref.exchange == "hub":
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
            f"changed after it was handed in: {entry.student}'s {where} (hand-in {entry.number}) "
            f"changed at {entry.changed[:19]} UTC: what was handed in at {(entry.counted or '')[:19]} counts"
        )
    if entry.gone:
        lines.append(
            f"removed from the exchange after it was handed in: {entry.student}'s {where} "
            f"(hand-in {entry.number}), gone by {entry.gone[:19]} UTC"
        )
    return lines
