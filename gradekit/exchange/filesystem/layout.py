"""Who may read what in the exchange: the modes and owners gradekit's exchange classes set.

    <root>/                      1777 (sticky: nobody can rename another's course away), or 0755
    <root>/<course>/             the instructor's, 0755
      outbound/                  0755
      outbound/<a>/              0711: traversable, not listable
      outbound/<a>/<student>/    that student's alone: 0700 + an ACL entry ``user:<student>:r-x``
                                 (files 0600 + ``r--``), or, without ACLs, chowned to them at 0500/0400 (root)
      inbound/                   3753: setgid to the staff group, sticky: students create entries, nobody
                                 but the staff lists them, only an entry's owner or the instructor renames
                                 or deletes one
      inbound/<submission>/      its student's, group staff: 0770, files 0640 (GradekitSubmit)
      feedback/                  0711
      feedback/<hash>.html       the instructor's, 0600 + ``user:<student>:r--``; without ACLs chowned to the
                                 student at 0400 (root), else 0644 (its hashed name is then the only secret)

An ACL entry is written as the kernel's ``system.posix_acl_access`` attribute
(what ``setfacl`` writes): the owner of a file may set it without privileges, so
an instructor who is not root can still give one student alone one folder.
Submissions are attributed by owner, not by name (gradekit.exchange.filesystem.inbound), so
the layout's job is that no student can read, change, rename or delete
another's release, submission or feedback, nor the exchange's folders.
"""

from __future__ import annotations

import grp
import os
import stat
import struct
from pathlib import Path

_ACL = "system.posix_acl_access"
_USER_OBJ, _USER, _GROUP_OBJ, _GROUP, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_UNDEF = 0xFFFFFFFF

DEFAULT_ROOT = "/usr/local/share/nbgrader/exchange"  # nbgrader's own default exchange root
ROOT_MODE = 0o1777
COURSE_MODE = 0o755
OUTBOUND_MODE = 0o755
ASSIGNMENT_MODE = 0o711
INBOUND_MODE = 0o3753
FEEDBACK_MODE = 0o711
SUBMISSION_DIR, SUBMISSION_FILE = 0o770, 0o640


def set_private_acl(path: str | Path, owner_perm: int, readers: dict[int, int], group_perm: int = 0) -> bool:
    """Owner ``owner_perm``, group ``group_perm``, others nothing, plus ``user:<uid>:<perm>`` for
    each reader. False where the file system keeps no ACLs."""
    mask = group_perm
    for perm in readers.values():
        mask |= perm
    entries = [(_USER_OBJ, owner_perm, _UNDEF)]
    entries += [(_USER, perm, uid) for uid, perm in sorted(readers.items())]
    entries += [(_GROUP_OBJ, group_perm, _UNDEF), (_MASK, mask, _UNDEF), (_OTHER, 0, _UNDEF)]
    blob = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in entries)
    try:
        os.setxattr(path, _ACL, blob, follow_symlinks=False)
        return True
    except OSError:
        return False


def acl_readers(path: str | Path) -> dict[int, int]:
    """The ``user:<uid>`` entries of a file's ACL (uid -> permission bits); {} when it has none."""
    try:
        blob = os.getxattr(path, _ACL, follow_symlinks=False)
    except OSError:
        return {}
    out = {}
    for offset in range(4, len(blob) - 7, 8):
        tag, perm, uid = struct.unpack_from("<HHI", blob, offset)
        if tag == _USER:
            out[uid] = perm
    return out


def acl_groups(path: str | Path) -> dict[int, int]:
    """The ``group:<gid>`` entries of a file's ACL (gid -> permission bits, as its mask leaves them)."""
    try:
        blob = os.getxattr(path, _ACL, follow_symlinks=False)
    except OSError:
        return {}
    groups, mask = {}, 0o7
    for offset in range(4, len(blob) - 7, 8):
        tag, perm, gid = struct.unpack_from("<HHI", blob, offset)
        if tag == _GROUP:
            groups[gid] = perm
        elif tag == _MASK:
            mask = perm
    return {gid: perm & mask for gid, perm in groups.items() if perm & mask}


def strip_acls(path: str | Path) -> None:
    """A fetched copy is the student's own: no ACL of the exchange's rides along (copytree copies them)."""
    for dirname, _, files in os.walk(path):
        for full in [dirname, *(os.path.join(dirname, f) for f in files)]:
            try:
                os.removexattr(full, _ACL, follow_symlinks=False)
            except OSError:
                pass


def give_tree(path: str | Path, uid: int, gid: int) -> str:
    """Make ``path`` (a release folder) readable by one account alone: an ACL when the file system
    has them, else chown to it (root); "acl", "chown" or "" (neither was possible)."""
    done = True
    for dirname, _, files in os.walk(path):
        for name in files:
            full = os.path.join(dirname, name)
            os.chmod(full, 0o600)
            done &= set_private_acl(full, 0o6, {uid: 0o4})
        os.chmod(dirname, 0o700)
        done &= set_private_acl(dirname, 0o7, {uid: 0o5})
    if done:
        return "acl"
    try:
        for dirname, _, files in os.walk(path):
            os.chown(dirname, uid, gid)
            os.chmod(dirname, 0o500)
            for name in files:
                os.chown(os.path.join(dirname, name), uid, gid)
                os.chmod(os.path.join(dirname, name), 0o400)
        return "chown"
    except PermissionError:
        return ""


def give_file(path: str | Path, uid: int, gid: int) -> str:
    """One file (a feedback page) for one account alone; see :func:`give_tree`."""
    os.chmod(path, 0o600)
    if set_private_acl(path, 0o6, {uid: 0o4}):
        return "acl"
    try:
        os.chown(path, uid, gid)
        os.chmod(path, 0o400)
        return "chown"
    except PermissionError:
        os.chmod(path, 0o644)
        return ""


def staff_gid(name: str) -> int:
    """The staff group's id: ``c.Gradekit.staff_group``, else this process's own group."""
    if name:
        try:
            return grp.getgrnam(name).gr_gid
        except KeyError:
            pass
    return os.getgid()


def root_problem(root: str | Path) -> str | None:
    """Why an exchange root is unsafe (writable by everybody without the sticky bit), or None."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    if st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
        return (
            f"{root} is writable by everybody without the sticky bit: any user can rename the course folder "
            f"away and put a fake one in its place (chmod 1777 {root})"
        )
    return None


def ensure_root(root: str | Path) -> str | None:
    """Create the exchange root 1777 when missing, or add the sticky bit to one that lacks it (when
    this account may); what could not be made safe, or None."""
    path = Path(root)
    if not path.exists():
        try:
            path.mkdir(parents=True)
            os.chmod(path, ROOT_MODE)
        except PermissionError:
            return f"{root} does not exist and cannot be created here: ask your administrator"
        return None
    problem = root_problem(path)
    if problem:
        try:
            os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) | stat.S_ISVTX)
        except PermissionError:
            return problem
    return None


def mode_of(path: str | Path) -> int | None:
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        return None


def feedback_name(secret: str, notebook_id: str) -> str:
    """The file name of a notebook's feedback page in feedback/ -- the one hash gradekit files and
    finds feedback by: nbgrader's own (``nbgrader.utils.notebook_hash(secret=..., notebook_id=...)``,
    what nbgrader's list and fetch_feedback look for), without importing nbgrader (its package
    imports its server extensions: seconds)."""
    import hashlib

    return hashlib.md5(secret.encode() + notebook_id.encode()).hexdigest() + ".html"


SECRET_FILE = "submission_secret.txt"  # what nbgrader's submit writes into a hand-in, and collect copies


def read_submission_secret(*folders: str | Path) -> str | None:
    """A hand-in's submission secret, the key of its feedback's name: ``submission_secret.txt`` of
    the first of ``folders`` that has one, read as a file the student wrote (no link followed, at
    most 4 KiB) and as nbgrader reads it (the whole text); None when none has one."""
    from gradekit.errors import SubmissionError
    from gradekit.untrusted import read_bytes

    for folder in folders:
        try:
            return read_bytes(Path(folder, SECRET_FILE), 4096).decode("utf-8", "replace")
        except SubmissionError:
            continue
    return None


def release_pages(dest: Path, account: str | None, secret: str, pages: dict[str, str]) -> list[str]:
    """Release feedback ``pages`` (notebook id -> the instructor's HTML) of the hand-in whose
    submission secret is ``secret`` into the exchange's feedback folder ``dest``, each under the
    name nbgrader's fetch_feedback looks for, readable by the student's ``account`` alone (without
    one: 0644, its hashed name the only secret), each swapped in whole. The notebook ids released.

    A page the folder holds already, word for word, is left as it is: the student may ``stat`` the
    files of their own hand-ins, and a page swapped in anew (its time, its inode) for the one hand-in
    that counts would tell which one that is -- under ``counts = "best"`` before the due date, how the
    hidden part of each did (the hub exchange answers with a page's checksum alone, never its time)."""
    import pwd

    from gradekit.atomic import atomic_write_bytes
    from gradekit.exchange.identity import is_me

    try:
        owner = pwd.getpwnam(account) if account else None
    except KeyError:
        owner = None
    done = []
    for notebook_id, html in sorted(pages.items()):
        target, data = dest / feedback_name(secret, notebook_id), html.encode("utf-8")
        if _holds(target, data):
            done.append(notebook_id)
            continue
        atomic_write_bytes(target, data)
        if owner is None or is_me(owner.pw_uid) or not give_file(target, owner.pw_uid, owner.pw_gid):
            os.chmod(target, 0o644)  # no account of its own: its hashed name is the only secret
        done.append(notebook_id)
    return done


def _holds(target: Path, data: bytes) -> bool:
    """Whether ``target`` holds ``data`` (False for a link, or a file that cannot be read)."""
    try:
        return not target.is_symlink() and target.read_bytes() == data
    except OSError:  # none there, a folder, unreadable: written anew
        return False


def give_feedback(course, feedback_dir: Path, student: str, submission: Path, pages: dict[str, str]) -> bool:
    """The filesystem exchange's feedback back (FilesystemExchange.give_feedback; nbgrader's release_feedback
    of gradekit's class on a course of this exchange): ``pages`` of the hand-in collected in
    ``submission`` into ``feedback_dir`` under the name nbgrader's fetch_feedback looks for (its
    submission secret's), readable by the student's account alone; False without a secret."""
    from gradekit.errors import ExchangeFailure
    from gradekit.exchange.identity import Identities

    secret = read_submission_secret(submission)
    if secret is None:
        return False
    if not feedback_dir.parent.is_dir():
        raise ExchangeFailure(
            f"no exchange for {course.course_id} at {feedback_dir.parent}: release an assignment first "
            "(gradekit release ASSIGNMENT)"
        )
    feedback_dir.mkdir(mode=FEEDBACK_MODE, exist_ok=True)
    trust_names = bool((course.config or {}).get("GradekitCollect", {}).get("trust_names", False))
    account = None if trust_names else Identities.of(course).account_of(student)
    release_pages(feedback_dir, account, secret, pages)
    return True


def exchange_root(course) -> Path:
    """The course's ``c.Exchange.root`` (nbgrader's default when none is set)."""
    return Path(str((course.config or {}).get("Exchange", {}).get("root") or DEFAULT_ROOT))


def course_exchange(course) -> Path:
    """``<Exchange.root>/<course_id>/``: the course's outbound/, inbound/ and feedback/."""
    return exchange_root(course) / course.course_id
