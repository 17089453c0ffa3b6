"""A hand-in: one arrival in the exchange, read and judged -- the one type both exchanges make.

    HandinRef    where the exchange holds it, made by that exchange and read by it alone: the ledger
                 keys a hand-in by it, a collected submission's receipt.json carries it, feedback goes
                 back for it. ``place`` says where it is, for a person ("inbound/<folder>", "record
                 17 of the hub exchange")
    Handin       who handed it in (the account or hub user the exchange vouches for, and the student
                 that is), when (it arrived; what it claimed), what (its files, their digest), or why
                 it is refused -- a value: made once, never changed

The filesystem exchange's reference is a folder of inbound/ (its inode and name: a name can be used
again once a folder is gone), the hub exchange's is the service's number; nothing outside the
exchange that made a reference reads its key.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

IMPERSONATION = "handed in under another student's name"


@dataclass(frozen=True)
class HandinRef:
    """Where an exchange holds one hand-in (see the module's docstring)."""

    exchange: str  # the exchange's kind: "filesystem", "hub"
    key: str  # the exchange's own key; no one else reads it
    place: str = field(default="", compare=False)  # where it is, for a person's line

    def __str__(self) -> str:
        return f"{self.exchange}:{self.key}"

    @classmethod
    def parse(cls, text: str, place: str = "") -> HandinRef:
        """The reference ``str(ref)`` wrote; ValueError for anything else."""
        exchange, sep, key = str(text).partition(":")
        if not sep or not exchange.isalpha() or not key:
            raise ValueError(f"not a hand-in reference: {text!r}")
        return cls(exchange, key, place)


@dataclass(frozen=True)
class Handin:
    """One hand-in as its exchange read and judged it (see the module's docstring)."""

    ref: HandinRef
    assignment: str
    named: str  # the student it claims to be for (its folder's name; the hub: the caller, or ?user=)
    account: str  # who handed it in: the account that owns its folder, the hub user whose token sent it
    student: str | None  # whom it counts for: that account's student id (None: nobody's)
    arrived: dt.datetime | None = None  # naive UTC: when it arrived, as the exchange vouches for it
    claimed: dt.datetime | None = None  # naive UTC: its timestamp.txt (else its name's time)
    files: Mapping[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    problem: str | None = None  # why it is refused; None: accepted
    kind: str = ""  # the problem's kind: "impersonation", "unreadable", "not a folder", "unknown", ...
    digest: str | None = None  # its sha256 as the exchange vouches for it (the hub's); None: from its files

    @property
    def accepted(self) -> bool:
        return self.problem is None

    @property
    def sha256(self) -> str:
        """Of what was handed in: every file's path and bytes (timestamp.txt is a claim: not in it)."""
        return self.digest or files_sha256(self.files)

    def refused(self, problem: str, kind: str) -> Handin:
        """This hand-in, refused for ``problem``."""
        return replace(self, problem=problem, kind=kind)

    def backdated(self, tolerance: float) -> bool:
        """Whether its claim disagrees with when it arrived by more than ``tolerance`` seconds."""
        return (
            self.claimed is not None
            and self.arrived is not None
            and abs((self.arrived - self.claimed).total_seconds()) > tolerance
        )

    def counted(self, tolerance: float) -> dt.datetime | None:
        """The time it counts at: its claim when that agrees with when it arrived, else the arrival."""
        if self.arrived is None:
            return self.claimed
        if self.claimed is not None and abs((self.arrived - self.claimed).total_seconds()) <= tolerance:
            return self.claimed
        return self.arrived


def files_sha256(files: Mapping[str, bytes]) -> str:
    """The digest of a hand-in's files ({relative path: bytes}): every path and its bytes' SHA-256,
    timestamp.txt left out (it is a claim)."""
    digest = hashlib.sha256()
    for path in sorted(files):
        if path != "timestamp.txt":
            digest.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return digest.hexdigest()
