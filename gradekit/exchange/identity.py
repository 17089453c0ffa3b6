"""Who handed a submission in: the Unix account that owns it, never the name it carries.

nbgrader's exchange names a submission ``<student>+<assignment>+<time>+<random>``,
and any student can write any name. What a student cannot choose is the owner of
the folder they create: only root (or that account) can make an inode owned by
another account. So a submission counts for the student whose account owns its
folder; the name is a claim, checked against it.

The mapping from accounts to student ids is nbgrader's by default (the account's
name is the student id, as on a JupyterHub with one Unix user per student); a
course gives another one with ``c.Gradekit.identities``, a CSV of
``account,student_id`` (an LMS id, an e-mail address: whatever the gradebook uses).
"""

from __future__ import annotations

import csv
import os
import pwd
from dataclasses import dataclass, field
from pathlib import Path

from gradekit.errors import CourseError
from gradekit.untrusted import is_valid_id


@dataclass
class Identities:
    """Accounts to student ids and back (``by_account`` empty: an account's name is its student id)."""

    by_account: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, course) -> Identities:
        setting = str(getattr(course.settings, "identities", "") or "")
        if not setting:
            return cls()
        path = Path(course.root, setting)
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh))
        except OSError as exc:
            raise CourseError(f"c.Gradekit.identities: {path} cannot be read ({exc.strerror})") from None
        mapping = {}
        for row in rows:
            account, student = (row.get("account") or "").strip(), (row.get("student_id") or "").strip()
            if not account or not is_valid_id(student):
                raise CourseError(f"c.Gradekit.identities: {path} needs the columns account,student_id on every row")
            mapping[account] = student
        return cls(mapping)

    def student_of(self, account: str) -> str | None:
        """The student id of an account (None: an account that is no student's)."""
        if self.by_account:
            return self.by_account.get(account)
        return account if is_valid_id(account) else None

    def account_of(self, student: str) -> str | None:
        """The account a student hands in from."""
        if self.by_account:
            return next((a for a, s in self.by_account.items() if s == student), None)
        return student

    def uid_of(self, student: str) -> int | None:
        account = self.account_of(student)
        if account is None:
            return None
        try:
            return pwd.getpwnam(account).pw_uid
        except KeyError:
            return None


def account_name(uid: int) -> str:
    """An account's name, or its number when it has none here."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def is_me(uid: int) -> bool:
    return uid == os.getuid()
