"""Everything a student controls besides their code, checked in one place.

Student *code* is contained by the sandbox and its protocol. What a student
also controls -- and what this module checks before anything else reads it:

    student ids        the names of folders in submitted/, ids in archives and the exchange
    file names         path traversal, odd Unicode, names that differ only in case
    files              symbolic links (never followed), FIFOs and devices, sizes
    timestamps         timestamp.txt, which the student's own ``nbgrader submit`` writes
    archives           the entries of an LMS bulk download (sizes, ratio, count, paths)
    text               messages and names shown by rich or HTML: markup and control characters

Every check returns a value or raises :class:`~gradekit.errors.SubmissionError`
(or ``UsageError`` for ids) with one line that says what was wrong and what
limit applied. Nothing here trusts a size a file or archive reports about itself.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradekit.errors import HandinTooLarge, SubmissionError, UsageError
from gradekit.i18n.text import _

# -- student ids ----------------------------------------------------------------------------

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,127}$")


def require_id(kind: str, value: str) -> str:
    """The one id rule (students, assignments, courses): ASCII letters, digits and ``_.@+-``,
    starting with a letter or digit, at most 128 characters -- nothing that can escape a
    folder, glob, or look like another id."""
    if not isinstance(value, str) or not _ID.match(value) or value in {".", ".."}:
        raise UsageError(f"invalid {kind} id {value!r}: use letters, digits and _.@+- (at most 128)")
    return value


def is_valid_id(value: str) -> bool:
    return isinstance(value, str) and bool(_ID.match(value))


# -- files and folders ---------------------------------------------------------------------

MAX_NAME = 255


def require_file_name(name: str) -> str:
    """A file name from a student (a submitted notebook, an archive entry): one path part,
    printable, NFC-normalised; raises SubmissionError otherwise."""
    if not name or name in {".", ".."} or "/" in name or "\\" in name or "\0" in name:
        raise SubmissionError(f"the file name {shown(name, 80)!r} is not allowed")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME:
        raise SubmissionError(f"a file name is over {MAX_NAME} bytes long")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in name):
        raise SubmissionError(f"the file name {shown(name, 80)!r} has control or invisible characters")
    return unicodedata.normalize("NFC", name)


def is_plain_folder(path: Path) -> bool:
    """A real directory, not a symbolic link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def submission_files(folder: Path, suffix: str = ".ipynb") -> dict[str, Path]:
    """The regular files named ``*<suffix>`` in a submission folder, by name.

    Symbolic links, FIFOs, devices and odd names are left out (a symlink in
    submitted/ could point anywhere on the grading machine; a FIFO would block
    the reader for ever). The folder itself must not be a link.
    """
    if not is_plain_folder(folder) or not is_plain_folder(folder.parent):
        return {}
    files = {}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return {}
    for entry in entries:
        if not entry.name.endswith(suffix) or entry.name.startswith("."):
            continue
        try:
            name = require_file_name(entry.name)
            if not entry.is_file(follow_symlinks=False):
                continue
        except (SubmissionError, OSError):
            continue
        files[name] = Path(entry.path)
    return dict(sorted(files.items()))


def submitted_students(base: Path, assignment: str, known: set[str]) -> tuple[list[str], list[str]]:
    """The students with a submission of ``assignment`` in ``base`` (submitted/), and one line
    for each folder left out: not a valid id, a symbolic link, not in the gradebook (with the
    gradebook id it matches but for case, if one does)."""
    students, skipped = [], []
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name) if is_plain_folder(base) else []
    except OSError:
        entries = []
    folded = {s.casefold(): s for s in known}
    for entry in entries:
        label = f"submitted/{shown(entry.name, 80)}"
        if not is_valid_id(entry.name):
            skipped.append(f"skipped {label}: not a valid student id")
            continue
        if not is_plain_folder(Path(entry.path)) or (
            os.path.lexists(Path(entry.path, assignment)) and not is_plain_folder(Path(entry.path, assignment))
        ):
            skipped.append(f"skipped {label}: a symbolic link or not a folder; links are not followed")
            continue
        if not is_plain_folder(Path(entry.path, assignment)):
            continue
        if entry.name not in known:
            hint = folded.get(entry.name.casefold())
            skipped.append(f"skipped {label}: not in the gradebook" + (f" (did you mean {hint}?)" if hint else ""))
            continue
        students.append(entry.name)
    return students, skipped


def folder_listing(folder: Path) -> list[str]:
    """The names in a submission folder, made printable, sorted (for a message)."""
    try:
        return sorted(shown(entry.name, 80) for entry in os.scandir(folder) if entry.name != "timestamp.txt")
    except OSError:
        return []


def find_notebook(files: dict[str, Path], expected: str) -> tuple[Path | None, str | None]:
    """The submitted file for notebook ``expected`` (e.g. ``hw.ipynb``): the exact name, else
    the one name that differs from it only in case (with a note saying so)."""
    if expected in files:
        return files[expected], None
    folded = [name for name in files if name.casefold() == expected.casefold()]
    if len(folded) == 1:
        return files[folded[0]], _("{name} was graded as {expected} (the name differs only in case)").format(
            name=folded[0], expected=expected
        )
    return None, None


def read_bytes(path: Path, limit: int, what: str | None = None) -> bytes:
    """A regular file's bytes, never following a symbolic link and never reading past ``limit``."""
    label = what or path.name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: a symbolic link
            raise SubmissionError(
                _("{file}: a symbolic link, not a file; links are not followed").format(file=label)
            ) from None
        raise SubmissionError(_("{file}: cannot be read ({reason})").format(file=label, reason=exc.strerror)) from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionError(_("{file}: not a regular file").format(file=label))
        if info.st_size > limit:
            raise SubmissionError(
                _("{file}: {size} is over the {limit} limit").format(
                    file=label, size=_size(info.st_size), limit=_size(limit)
                )
            )
        data = fh.read(limit + 1)
    if len(data) > limit:  # it grew while we read it
        raise SubmissionError(_("{file}: over the {limit} limit").format(file=label, limit=_size(limit)))
    return data


def _size(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB" if n >= 2**10 else f"{n} bytes"


# -- timestamps --------------------------------------------------------------------------------

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"  # nbgrader's timestamp.txt
MAX_TIMESTAMP_BYTES = 256
FUTURE_SLACK = dt.timedelta(days=1)  # clocks differ; a day ahead is still believable


@dataclass(frozen=True)
class Timestamp:
    """A submission's time as nbgrader wrote it, or None with the reason it was not usable."""

    text: str | None  # normalised, nbgrader's format, UTC; None: unknown
    problem: str | None = None  # why a timestamp.txt that exists was not used


def read_timestamp(folder: Path, now: dt.datetime | None = None) -> Timestamp:
    """The submission's ``timestamp.txt``; an unusable one is *unknown*: graded, not late, reported."""
    path = folder / "timestamp.txt"
    if not os.path.lexists(path):
        return Timestamp(None)
    try:
        raw = read_bytes(path, MAX_TIMESTAMP_BYTES, "timestamp.txt")
    except SubmissionError as exc:
        return Timestamp(
            None, _("{reason}; the submission time is unknown (graded as on time)").format(reason=exc.args[0])
        )
    return parse_timestamp(raw, now)


def parse_timestamp(raw: bytes | str, now: dt.datetime | None = None) -> Timestamp:
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        return Timestamp(None, _("timestamp.txt is not text; the submission time is unknown (graded as on time)"))
    text = text.strip()
    if not text:
        return Timestamp(None, _("timestamp.txt is empty; the submission time is unknown (graded as on time)"))
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        return Timestamp(
            None, _("timestamp.txt holds control characters; the submission time is unknown (graded as on time)")
        )
    try:
        when = parse_utc(text)
    except Exception:  # dateutil raises ParserError, ValueError, OverflowError, TypeError, ...
        return Timestamp(
            None,
            _(
                "timestamp.txt does not hold a date ({text!r}); the submission time is unknown (graded as on time)"
            ).format(text=shown(text, 40)),
        )
    if not isinstance(when, dt.datetime) or when.year < 1970:
        return Timestamp(
            None,
            _(
                "timestamp.txt does not hold a believable date ({text!r}); the submission time "
                "is unknown (graded as on time)"
            ).format(text=shown(text, 40)),
        )
    now = now or dt.datetime.now(dt.UTC).replace(tzinfo=None)
    if when > now + FUTURE_SLACK:
        return Timestamp(
            None,
            _("timestamp.txt is in the future ({when} UTC); the submission time is unknown (graded as on time)").format(
                when=f"{when:%Y-%m-%d %H:%M}"
            ),
        )
    return Timestamp(when.strftime(TIMESTAMP_FORMAT))


def parse_utc(text: str) -> dt.datetime:
    """nbgrader's ``utils.parse_utc`` for a string, as naive UTC (tests/intake/test_robustness.py holds
    it to nbgrader's): importing nbgrader for it cost every grading process a second and more."""
    import dateutil.parser
    import dateutil.tz

    parts = text.split(" ")
    if len(parts) == 3:
        zone: Any = parts[2]  # a name, then an offset in seconds or a tzinfo
        try:
            zone = int(zone)
        except ValueError:
            zone = dateutil.tz.gettz(zone)
        when = dateutil.parser.parse(" ".join(parts[:2] + ["TZ"]), tzinfos=dict(TZ=zone))
    else:
        when = dateutil.parser.parse(text)
    if when.tzinfo is not None:
        when = (when - when.utcoffset()).replace(tzinfo=None)
    return when


def timestamp_value(text: str | None) -> dt.datetime | None:
    """A stored, normalised timestamp back as a naive UTC datetime; None if it is not one."""
    if not text:
        return None
    try:
        return dt.datetime.strptime(text, TIMESTAMP_FORMAT)
    except (TypeError, ValueError):
        parsed = parse_timestamp(text)
        return dt.datetime.strptime(parsed.text, TIMESTAMP_FORMAT) if parsed.text else None


# -- archives ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArchiveLimits:
    entry_bytes: int = 50 << 20  # one file, uncompressed
    total_bytes: int = 2 << 30  # the whole archive, uncompressed
    ratio: float = 200.0  # uncompressed / compressed, for entries over 1 MiB
    entries: int = 20_000


def require_archive(infos: list, limits: ArchiveLimits) -> None:
    """Refuse a whole archive (one line) that has too many entries or claims too much in all."""
    from gradekit.errors import LMSError

    if len(infos) > limits.entries:
        raise LMSError(
            f"the archive has {len(infos):,} entries, over the limit of {limits.entries:,}: is it the right file?"
        )
    total = sum(max(0, info.file_size) for info in infos)
    if total > limits.total_bytes:
        raise LMSError(f"the archive would unpack to {_size(total)}, over the {_size(limits.total_bytes)} limit")


def require_archive_entry(info, limits: ArchiveLimits) -> str | None:
    """Why one entry of an archive is refused (one line), or None when it may be read."""
    return archive_path_problem(info) or archive_size_problem(info, limits)


def archive_path_problem(info) -> str | None:
    """Why an entry's name is refused: an absolute path, or one with '..'."""
    name = info.filename
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or ".." in parts or "\0" in name:
        return f"{shown(name, 120)}: an absolute path or one with '..'"
    return None


def archive_size_problem(info, limits: ArchiveLimits) -> str | None:
    """Why an entry is too large: over the limit for one file, or compressed past the ratio (a zip bomb)."""
    name = info.filename
    if info.file_size > limits.entry_bytes:
        return f"{shown(name, 120)}: {_size(info.file_size)} is over the {_size(limits.entry_bytes)} limit for one file"
    if info.file_size > (1 << 20) and info.file_size > limits.ratio * max(info.compress_size, 1):
        return (
            f"{shown(name, 120)}: compressed {info.file_size / max(info.compress_size, 1):,.0f} to 1, over "
            f"the {limits.ratio:g} to 1 limit (a zip bomb?)"
        )
    return None


def read_archive_entry(zf, info, limits: ArchiveLimits) -> bytes:
    """An entry's bytes, read in blocks and stopped at the limit whatever its header claims."""
    out = bytearray()
    with zf.open(info) as fh:
        while True:
            block = fh.read(1 << 20)
            if not block:
                return bytes(out)
            out += block
            if len(out) > limits.entry_bytes:
                raise HandinTooLarge(
                    f"{shown(info.filename, 120)}: unpacks to more than "
                    f"{_size(limits.entry_bytes)}, over the limit for one file"
                )


@dataclass(frozen=True)
class HandinLimits:
    """What one hand-in through the hub exchange may hold: ``gradekit hub-exchange --max-mb`` and
    ``--max-files`` (gradekit.exchange.hub.wire.Limits; the archive's own limits, ratio and paths, are
    :class:`ArchiveLimits`')."""

    max_bytes: int = 20 << 20  # all its files, uncompressed
    max_files: int = 50


def read_handin_zip(data: bytes, limits: HandinLimits) -> dict[str, bytes]:
    """The files of a hand-in sent as a zip: {relative path: bytes}, or SubmissionError (one line,
    for the student) -- too many files, too large once unpacked, a zip bomb, an absolute path or
    '..', a name that is not allowed; nothing is written anywhere."""
    import io
    import zipfile

    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = [i for i in zf.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, ValueError, OSError):
        raise SubmissionError("the hand-in is not a zip archive") from None
    if len(infos) > limits.max_files:
        raise HandinTooLarge(f"{len(infos)} files, over the limit of {limits.max_files} files a hand-in")
    archive = ArchiveLimits(entry_bytes=limits.max_bytes, total_bytes=limits.max_bytes, entries=limits.max_files)
    total = sum(max(0, i.file_size) for i in infos)
    if total > limits.max_bytes:
        raise HandinTooLarge(f"the files come to {_size(total)}, over the limit of {_size(limits.max_bytes)} a hand-in")
    files: dict[str, bytes] = {}
    read = 0
    for info in infos:
        problem = archive_path_problem(info)
        if problem:
            raise SubmissionError(problem)
        problem = archive_size_problem(info, archive)
        if problem:
            raise HandinTooLarge(problem)
        parts = [require_file_name(part) for part in info.filename.replace("\\", "/").split("/") if part]
        name = "/".join(parts)
        if not name or name.casefold() in {n.casefold() for n in files}:
            raise SubmissionError(f"the file name {shown(info.filename, 80)!r} is empty or given twice")
        try:
            content = read_archive_entry(zf, info, archive)
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError):
            raise SubmissionError(f"{shown(info.filename, 80)}: cannot be unpacked") from None
        read += len(content)
        if read > limits.max_bytes:  # whatever the headers claimed
            raise HandinTooLarge(f"the files unpack to more than {_size(limits.max_bytes)}, the limit a hand-in")
        files[name] = content
    return files


def pack_zip(files: dict[str, bytes]) -> bytes:
    """``files`` ({relative path: bytes}) as a zip: what the hub exchange's clients send and receive."""
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o600 << 16
            zf.writestr(info, files[name], compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


# -- text a student wrote, shown to the instructor -------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text, limit: int = 300) -> str:
    """Student text made safe to print: control characters (terminal escapes, bidi overrides)
    replaced, cut to ``limit`` characters (see :func:`clip`). HTML escaping is the templates'
    (autoescape)."""
    return clip(_CONTROL.sub("\ufffd", str(text)), limit)


def clip(text, limit: int) -> str:
    """``text`` in at most ``limit`` characters: cut, where it must be, after the last whole word
    that fits (never within one, unless a single word is longer than a third of the room), and
    "…" put in its place."""
    text = str(text)
    if len(text) <= limit:
        return text
    room = max(limit - 1, 1)
    head = text[:room]
    if not text[room].isspace():  # the cut falls inside a word: keep the words before it
        space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
        if space >= room * 2 // 3:
            head = head[:space]
    return head.rstrip(" ,;:-(\n\t") + "…"


def for_rich(text, limit: int = 300) -> str:
    """Student text for rich: :func:`shown`, with rich's markup escaped (``[/x]`` is just text)."""
    from rich.markup import escape

    return escape(shown(text, limit))
