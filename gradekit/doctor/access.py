"""Who can read a path: the checks every part of ``gradekit doctor`` makes, and its Problem.

A path is readable by another account when every folder above it lets others through and it
lets others read (its mode, or an ACL entry for another account); by a student when a group of
theirs may (a group bit, a group ACL entry). What only that account can tell (a home, the hub's
shared account) is asked as that account (runuser).
"""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gradekit.exchange.filesystem import layout


@dataclass
class Problem:
    what: str
    fix: str

    def line(self) -> str:
        return f"{self.what}; fix: {self.fix}"


def others_can(path: Path, bits: int, allowed: frozenset[int] = frozenset()) -> bool:
    """Whether an account that is neither the owner nor in the group has ``bits`` (stat.S_IROTH...)
    on ``path``, or an ACL entry gives another account (one not in ``allowed``) read."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    readers = set(layout.acl_readers(path)) - {st.st_uid} - allowed
    return bool(st.st_mode & bits) or bool(readers)


def reachable(path: Path) -> bool:
    """Every folder above ``path`` lets other accounts through."""
    for parent in list(Path(path).resolve().parents)[::-1]:
        if not others_can(parent, stat.S_IXOTH):
            return False
    return True


def students_groups(course) -> dict[int, list[str]]:
    """gid -> the roster's accounts in that group (primary or not): a group bit or ACL entry for one
    of these groups lets a student read."""
    import grp

    out: dict[int, list[str]] = {}
    for account in accounts(course):
        try:
            entry = pwd.getpwnam(account)
        except KeyError:
            continue
        gids = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if account in g.gr_mem}
        for gid in gids:
            out.setdefault(gid, []).append(account)
    return out


def accounts(course) -> list[str]:
    """The roster's accounts: the gradebook's students under the names c.Gradekit.identities gives them."""
    from gradekit.exchange.identity import Identities
    from gradekit.gradebook import read

    try:
        students = read.students(course)
    except Exception:  # noqa: BLE001 - no gradebook yet: no roster to check
        return []
    identities = Identities.of(course)
    return sorted({identities.account_of(s) or s for s in students})


def students_can(path: Path, bits: int, groups: dict[int, list[str]]) -> list[str]:
    """The roster's accounts a group bit (``bits`` shifted to the group's) or a group ACL entry lets read."""
    try:
        st = os.stat(path)
    except OSError:
        return []
    found = []
    if st.st_mode & (bits << 3):
        found += groups.get(st.st_gid, [])
    for gid, perm in layout.acl_groups(path).items():
        if perm & bits:
            found += groups.get(gid, [])
    return sorted(set(found))


def share_line(root: Path, staff: str) -> str:
    """The command that lets the staff group read and write the course (Formgrader, as an instructor
    who is not root), files made later included (a default ACL), and nobody else."""
    return f"setfacl -R -m g:{staff}:rwX,d:g:{staff}:rwX {root}"


def uid_of(student: str) -> int | None:
    """The account of a student who has one of their own (else nothing of theirs can be private)."""
    try:
        return pwd.getpwnam(student).pw_uid
    except KeyError:
        return None


NO_RUNUSER = Problem(
    "runuser was not found (not on PATH, nor in /usr/sbin or /sbin): doctor cannot ask as another account "
    "what it reads",
    "apt-get install util-linux, or run doctor with /usr/sbin on PATH",
)


def runuser_path() -> str | None:
    """runuser's path: on PATH, else where Debian keeps it (/usr/sbin is not on a plain user's PATH)."""
    import shutil

    for found in (shutil.which("runuser"), "/usr/sbin/runuser", "/sbin/runuser"):
        if found and os.access(found, os.X_OK):
            return found
    return None


def account_reads(account: str, path: Path) -> bool:
    """Whether ``account`` can read ``path`` (list it, for a folder): asked as that account (root only)."""
    test = ["test", "-r", str(path), "-a", "-x" if path.is_dir() else "-r", str(path)]
    runuser = runuser_path()
    if os.geteuid() != 0 or runuser is None:
        return False
    probe = subprocess.run([runuser, "-u", account, "--", *test], capture_output=True)
    return probe.returncode == 0
