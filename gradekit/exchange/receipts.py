"""A receipt for every submission: what was handed in, when it counts, which attempt -- signed.

    gk1~<student>~<assignment>~<attempt>~<time it counts, UTC>~<first 16 of the files' SHA-256>~<HMAC>

The HMAC is keyed with the course secret, so a student cannot make one, nor
change a field of theirs: ``gradekit receipt CHECK`` says whether a receipt a
student shows was made by this course, and what the course holds of that hand-in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from dataclasses import dataclass

PREFIX = "gk1"
_FMT = "%Y%m%dT%H%M%SZ"


@dataclass(frozen=True)
class Receipt:
    student: str
    assignment: str
    attempt: int
    counted: dt.datetime  # naive UTC, to the second
    sha256: str  # the first 16 hex digits of the files' SHA-256

    def fields(self) -> list[str]:
        return [PREFIX, self.student, self.assignment, str(self.attempt), self.counted.strftime(_FMT), self.sha256[:16]]


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
