"""What arrives in the exchange's inbound folder, read trusting only what a student cannot forge.

    who    the account that owns the submission's folder (lstat: its inode), mapped to a student
           (gradekit.exchange.identity); the name the folder carries is a claim, checked against it
    when   the latest change time (ctime) of anything in it, which no user can set back; the
           ``timestamp.txt`` that ``nbgrader submit`` writes is a claim: it counts only when it agrees
           with that within ``c.Gradekit.timestamp_tolerance``, and the disagreement is reported
    what   its files, read through file descriptors, never following a link (O_NOFOLLOW at every
           step, from an open inbound/): regular files owned by the same account, one link each,
           within a size cap -- what was checked is what is copied

A submission that breaks one of these is refused with its reason and never
graded (:attr:`Handin.problem`); the rest of the class goes on. nbgrader's own
collect follows symbolic links as root, files a folder under the name it
carries whoever made it (with a warning), and takes its time from the name and
``timestamp.txt``, both the student's to write.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import stat
from dataclasses import replace
from pathlib import Path

from gradekit.exchange.handin import IMPERSONATION, Handin, HandinRef
from gradekit.exchange.identity import Identities, account_name
from gradekit.untrusted import is_valid_id, parse_utc

MAX_BYTES = 100 << 20  # a submission larger than this is not read
KIND = "filesystem"


def folder_ref(name: str, ino: int) -> HandinRef:
    """The reference of the folder ``name`` of inbound/ with inode ``ino`` (a name can be used again
    once a folder is gone; the inode tells the two apart)."""
    return HandinRef(KIND, f"{ino}/{name}", f"inbound/{name}")


def folder_of(ref: HandinRef) -> tuple[str, int]:
    """(name, inode) of a folder's reference (:func:`folder_ref`)."""
    ino, _sep, name = ref.key.partition("/")
    return name, int(ino)


def parse_name(name: str) -> tuple[str, str, str] | None:
    """(student, assignment, time) of an nbgrader submission folder's name, or None."""
    parts = name.rsplit("+", 3)
    if len(parts) == 4 or len(parts) == 3:
        student, assignment, stamp = parts[0], parts[1], parts[2]
        if is_valid_id(student) and is_valid_id(assignment):
            return student, assignment, stamp
    return None


def read_inbound(
    inbound: Path,
    assignment: str,
    identities: Identities,
    names: list[str] | None = None,
    max_bytes: int = MAX_BYTES,
    trust_names: bool = False,
) -> list[Handin]:
    """Every submission of ``assignment`` in ``inbound`` (or only those ``names``), oldest first.
    ``trust_names``: the student is the one the name claims, as in nbgrader -- for one account
    that simulates a class (tests, a demo), never where students have accounts of their own."""
    found = []
    try:
        entries = sorted(os.listdir(inbound)) if names is None else list(names)
    except OSError:
        return []
    for name in entries:
        parsed = parse_name(name)
        if parsed is None or parsed[1] != assignment:
            continue
        found.append(read_handin(inbound, name, identities, max_bytes, trust_names))
    return sorted(found, key=lambda h: (h.arrived or dt.datetime.max, folder_of(h.ref)[0]))


def read_handin(
    inbound: Path, name: str, identities: Identities, max_bytes: int = MAX_BYTES, trust_names: bool = False
) -> Handin:
    """One folder of inbound/, read and judged (see the module's docstring)."""
    named, assignment, stamp = parse_name(name) or ("", "", "")
    try:
        st = os.lstat(inbound / name)
    except OSError as exc:
        unread = Handin(folder_ref(name, 0), assignment, named, "", None)
        return unread.refused(f"cannot be read ({exc.strerror})", "unreadable")
    account = account_name(st.st_uid)
    student = named if trust_names else identities.student_of(account)
    handin = Handin(folder_ref(name, st.st_ino), assignment, named, account, student)
    if not stat.S_ISDIR(st.st_mode):
        return handin.refused("not a folder (a symbolic link, a file, ...)", "not a folder")
    try:
        arrived, files = _snapshot(inbound, name, st.st_uid, st.st_ino, max_bytes)
    except ValueError as exc:
        problem: str | None = str(exc)
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror})"
    else:
        problem = None
    if student != named:
        impersonation = f"{IMPERSONATION}: named for {named}, handed in by the account {account}" + (
            "" if student is None else f" ({student})"
        )
        if problem is not None:
            return handin.refused(impersonation, "impersonation")
        # kept aside for the instructor: what was in it
        return replace(handin, arrived=arrived, files=files, problem=impersonation, kind="impersonation")
    if problem is not None:
        return handin.refused(problem, "unreadable")
    return replace(handin, arrived=arrived, files=files, claimed=_claimed(files.get("timestamp.txt"), stamp))


def _claimed(timestamp: bytes | None, stamp: str) -> dt.datetime | None:
    for text in ((timestamp or b"").decode("utf-8", "replace").strip(), stamp):
        if text and len(text) <= 256:
            try:
                return parse_utc(text)
            except (ValueError, OverflowError):
                continue
    return None


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).replace(tzinfo=None)


def _snapshot(inbound: Path, name: str, uid: int, ino: int, max_bytes: int) -> tuple[dt.datetime, dict[str, bytes]]:
    """(the latest ctime, {relative path: bytes}) of inbound/<name>, read through descriptors
    opened with O_NOFOLLOW from an open inbound/ (a folder swapped for a link half-way is not
    followed), or ValueError(the reason)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    base = os.open(inbound, flags | os.O_DIRECTORY)
    fds = [base]
    files: dict[str, bytes] = {}
    total = 0
    try:
        top = os.open(name, flags | os.O_DIRECTORY, dir_fd=base)
        fds.append(top)
        st = os.fstat(top)
        if (st.st_uid, st.st_ino) != (uid, ino):
            raise ValueError("it was replaced while being read")
        latest = st.st_ctime
        todo = [("", top)]
        while todo:
            rel, folder = todo.pop()
            for entry in sorted(os.listdir(folder)):
                path = f"{rel}/{entry}" if rel else entry
                try:
                    fd = os.open(entry, flags | os.O_NONBLOCK, dir_fd=folder)
                except OSError as exc:
                    raise ValueError(
                        f"{path}: a symbolic link" if exc.errno == errno.ELOOP else f"{path}: {exc.strerror}"
                    ) from None
                fds.append(fd)
                st = os.fstat(fd)
                if st.st_uid != uid:
                    raise ValueError(
                        f"{path} belongs to {account_name(st.st_uid)}, not to the account that handed it in"
                    )
                if stat.S_ISDIR(st.st_mode):
                    todo.append((path, fd))
                elif not stat.S_ISREG(st.st_mode):
                    raise ValueError(f"{path} is not a regular file")
                elif st.st_nlink != 1:
                    raise ValueError(f"{path} is a hard link to another file")
                else:
                    total += st.st_size
                    if total > max_bytes:
                        raise ValueError(f"larger than {max_bytes >> 20} MiB")
                    data = os.read(fd, st.st_size + 1)
                    if len(data) != st.st_size or os.fstat(fd).st_ctime != st.st_ctime:
                        raise ValueError(f"{path} changed while it was being read")
                    files[path] = data
                latest = max(latest, st.st_ctime)
        if os.fstat(top).st_ctime > latest:
            raise ValueError("it changed while it was being read")
        return _utc(latest), files
    finally:
        for fd in fds:
            os.close(fd)
