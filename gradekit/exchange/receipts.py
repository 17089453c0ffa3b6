"""A receipt for every hand-in: what was handed in, when it counts, which hand-in it is -- signed.

    gk1~<student>~<assignment>~<hand-in number>~<time it counts, UTC>~<first 16 of the files' SHA-256>~<HMAC>

The HMAC is keyed with the course secret, so a student cannot make one, nor
change a field of theirs: ``gradekit receipt CHECK`` says whether a receipt a
student shows was made by this course, and what the course holds of that hand-in.

Beside every collected submission, ``receipt.json`` says which hand-in it was (the ledger writes it:
:meth:`gradekit.exchange.ledger.Entry.installed_files`); :func:`read_receipt` reads it back, for the
grading (the result's receipt and hand-in number) and for feedback back (the hand-in's reference).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path

from gradekit.errors import SubmissionError
from gradekit.untrusted import read_bytes

PREFIX = "gk1"
_FMT = "%Y%m%dT%H%M%SZ"


@dataclass(frozen=True)
class Receipt:
    student: str
    assignment: str
    number: int  # the student's how-manieth hand-in of the assignment (the ledger's number)
    counted: dt.datetime  # naive UTC, to the second
    sha256: str  # the first 16 hex digits of the files' SHA-256

    def fields(self) -> list[str]:
        return [PREFIX, self.student, self.assignment, str(self.number), self.counted.strftime(_FMT), self.sha256[:16]]


def _mac(secret: bytes, course_id: str, fields: list[str]) -> str:
    message = "receipt\0" + course_id + "\0" + "~".join(fields)
    return hmac.new(secret, message.encode(), hashlib.sha256).hexdigest()[:20]


def make(secret: bytes, course_id: str, receipt: Receipt) -> str:
    fields = receipt.fields()
    return "~".join([*fields, _mac(secret, course_id, fields)])


def verify(secret: bytes, course_id: str, text: str) -> Receipt | None:
    """The receipt ``text`` stands for, if this course made it; None for a forged or garbled one."""
    parts = text.strip().split("~")
    if len(parts) != 7 or parts[0] != PREFIX:
        return None
    *fields, mac = parts
    if not hmac.compare_digest(_mac(secret, course_id, fields), mac):
        return None
    try:
        return Receipt(fields[1], fields[2], int(fields[3]), dt.datetime.strptime(fields[4], _FMT), fields[5])
    except ValueError:
        return None


RECEIPT_FILE = "receipt.json"  # beside a collected submission: its receipt, its hand-in and times


@dataclass(frozen=True)
class ReceiptFile:
    """What gradekit's collect wrote beside a submission (``receipt.json``): the hand-in's receipt, its
    number (the student's how-manieth hand-in) and its exchange's reference (gradekit.exchange.handin)."""

    receipt: str | None = None
    number: int | None = None
    handin: str | None = None
    place: str = ""


def read_receipt(folder: Path) -> ReceiptFile:
    """``receipt.json`` beside a submission (an empty ReceiptFile without one): read like anything else
    in submitted/, with a cap."""
    import json

    try:
        data = json.loads(read_bytes(folder / RECEIPT_FILE, 4096))
    except (SubmissionError, ValueError):
        return ReceiptFile()
    if not isinstance(data, dict):
        return ReceiptFile()
    receipt, number, handin, place = data.get("receipt"), data.get("number"), data.get("handin"), data.get("place")
    return ReceiptFile(
        receipt if isinstance(receipt, str) and len(receipt) < 200 else None,
        number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else None,
        handin if isinstance(handin, str) and len(handin) < 1000 else None,
        place if isinstance(place, str) and len(place) < 1000 else "",
    )
