"""Handing notebooks out and taking them back through an LMS (Canvas, Moodle) or by hand.

``gradekit release A --zip DIR`` writes, for every student,

    DIR/<student>/<notebook>.ipynb     the student's own notebook(s), to upload one by one
    DIR/<A>_<student>.zip              the same in one zip (<A>/<notebook>.ipynb inside)
    DIR/index.csv                      student id, e-mail, LMS user id, name -> files

``gradekit collect A SUBMISSIONS.zip`` imports an LMS bulk download into
submitted/<student>/<A>/ with a timestamp.txt from the zip entry's date:

* Canvas: ``lastnamefirstname_12345_67890_notebook.ipynb`` (name, Canvas user id,
  submission id, the original file name; late ones ``name_late_12345_...``;
  Canvas appends ``-1``, ``-2`` to resubmitted file names);
* Moodle: ``Full Name_12345_assignsubmission_file_/notebook.ipynb``;
* anything else: the parts of the path split at ``_`` and ``/``.

Those parts are looked up in one roster column (``--match``): ``id`` (the
gradebook's student id, i.e. the login), ``email`` (the whole address or the
part before the @) or ``lms_user_id``; the roster is nbgrader's gradebook
(students' ``id``, ``email``, ``lms_user_id``), or a CSV with an ``id`` column
and the matched column. Files that match no student, or several, are reported;
so is every student with no file in the zip. A submission already in
submitted/ that is newer than the zip's is never replaced.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from gradekit.course import Course, require_id
from gradekit.errors import GradekitError, LMSError, SubmissionError
from gradekit.untrusted import (
    ArchiveLimits,
    read_archive_entry,
    read_timestamp,
    require_archive,
    require_archive_entry,
    require_file_name,
    shown,
    timestamp_value,
)

MATCH_COLUMNS = ("id", "email", "lms_user_id")
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"  # nbgrader's timestamp.txt

_CANVAS = re.compile(r"^(?P<name>[^_/]+?)(?P<late>_late)?_(?P<uid>\d+)_(?P<sid>\d+)_(?P<orig>.+)$", re.I)
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<uid>\d+)_assign(?:submission|feedback)_[a-z]+_?$", re.I)
_RESUBMITTED = re.compile(r"^(?P<stem>.+?)-\d+(?P<ext>\.[^.]+)$")


# -- handing out -----------------------------------------------------------------------


def write_release_zips(course: Course, assignment: str, students: list[str], out: Path) -> list[Path]:
    """One folder and one zip per student from release/<student>/<assignment>/."""
    from gradekit.gradebook.connect import open_gradebook

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with open_gradebook(course) as gb:
        info = {s.id: s for s in gb.students}
    rows, written = [], []
    for student in students:
        src = course.release_dir(student, assignment)
        notebooks = sorted(src.glob("*.ipynb"))
        if not notebooks:
            raise LMSError(f"no released notebook for {student} in {src}: run `gradekit generate {assignment}`")
        folder = out / student
        folder.mkdir(exist_ok=True)
        for nb in notebooks:
            shutil.copyfile(nb, folder / nb.name)
            written.append(folder / nb.name)
        archive = out / f"{assignment}_{student}.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            for nb in notebooks:
                zf.write(nb, f"{assignment}/{nb.name}")
        written.append(archive)
        s = info.get(student)
        rows.append(
            {
                "id": student,
                "email": getattr(s, "email", "") or "",
                "lms_user_id": getattr(s, "lms_user_id", "") or "",
                "first_name": getattr(s, "first_name", "") or "",
                "last_name": getattr(s, "last_name", "") or "",
                "notebooks": " ".join(f"{student}/{nb.name}" for nb in notebooks),
                "zip": archive.name,
            }
        )
    with open(out / "index.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["id"])
        writer.writeheader()
        writer.writerows(rows)
    return written


# -- taking back -----------------------------------------------------------------------


@dataclass
class Entry:
    """One file of the bulk download."""

    path: str  # inside the zip
    filename: str  # the name it gets in submitted/<student>/<assignment>/
    candidates: list[str]  # strings to look up in the roster, best first
    when: dt.datetime  # the zip entry's date (UTC)
    late: bool = False


@dataclass
class CollectReport:
    imported: dict[str, list[str]] = field(default_factory=dict)  # student -> files
    kept_newer: dict[str, str] = field(default_factory=dict)  # student -> existing timestamp
    unmatched: list[str] = field(default_factory=list)  # zip paths
    ambiguous: dict[str, list[str]] = field(default_factory=dict)  # zip path -> students
    not_in_gradebook: dict[str, str] = field(default_factory=dict)  # zip path -> roster id
    missing: list[str] = field(default_factory=list)  # students with no file
    late: list[str] = field(default_factory=list)  # students the LMS marked late
    refused: list[str] = field(default_factory=list)  # entries refused, one line each

    def lines(self) -> list[str]:
        """What happened, one line each; names from the archive are the students': made printable."""
        out = [f"imported {len(self.imported)} submission(s)"]
        for line in self.refused:
            out.append(f"REFUSED {shown(line)}")
        for student, ts in sorted(self.kept_newer.items()):
            out.append(f"kept {student}'s newer submission ({ts}); the zip's is older")
        for path in self.unmatched:
            out.append(f"UNMATCHED file (no student in the roster): {shown(path)}")
        for path, who in sorted(self.ambiguous.items()):
            out.append(f"UNMATCHED file (matches {', '.join(who)}): {shown(path)}")
        for path, sid in sorted(self.not_in_gradebook.items()):
            out.append(
                f"UNMATCHED file: {shown(path)} is {shown(sid, 80)}, who is not in the gradebook "
                f"(nbgrader db student add {shown(sid, 80)})"
            )
        for student in self.missing:
            out.append(f"NO SUBMISSION from {student}")
        if self.late:
            out.append(f"marked late by the LMS: {', '.join(self.late)}")
        return out


def read_roster(course: Course, roster: Path | None, match: str) -> tuple[dict[str, list[str]], list[str]]:
    """(key -> student ids, all roster student ids) for the ``match`` column."""
    if match not in MATCH_COLUMNS:
        raise LMSError(f"--match must be one of {', '.join(MATCH_COLUMNS)}, not {match!r}")
    if roster is not None:
        try:
            text = Path(roster).read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise LMSError(f"cannot read the roster {roster}: {exc.strerror}") from None
        reader = csv.DictReader(io.StringIO(text))
        columns = [c.strip() for c in reader.fieldnames or []]
        for needed in {"id", match}:
            if needed not in columns:
                raise LMSError(
                    f"the roster {roster} has no {needed!r} column (columns: {', '.join(columns) or 'none'})"
                )
        rows = [{(k or "").strip(): (v or "").strip() for k, v in row.items()} for row in reader]
    else:
        from gradekit.gradebook.connect import open_gradebook

        with open_gradebook(course) as gb:
            rows = [{"id": s.id, "email": s.email or "", "lms_user_id": s.lms_user_id or ""} for s in gb.students]
    keys: dict[str, list[str]] = {}
    for row in rows:
        sid, value = row.get("id", ""), row.get(match, "")
        if not sid or not value:
            continue
        values = {value.lower()}
        if match == "email" and "@" in value:
            values.add(value.split("@", 1)[0].lower())  # the login part
        for v in values:
            keys.setdefault(v, [])
            if sid not in keys[v]:
                keys[v].append(sid)
    return keys, sorted({row["id"] for row in rows if row.get("id")})


def parse_entry(info: zipfile.ZipInfo, tz: dt.tzinfo) -> Entry | None:
    path = PurePosixPath(info.filename)
    if info.is_dir() or any(p.startswith(("__MACOSX", ".")) for p in path.parts):
        return None
    when = dt.datetime(*info.date_time, tzinfo=tz).astimezone(dt.UTC)
    name, late = path.name, False
    candidates: list[str] = []
    folder = path.parts[-2] if len(path.parts) > 1 else ""
    moodle = _MOODLE.match(folder) if folder else None
    canvas = _CANVAS.match(name)
    if moodle:
        who = moodle["name"]
        candidates = [moodle["uid"], who, who.replace(" ", ""), who.replace(" ", ".")]
    elif canvas:
        name, late = canvas["orig"], bool(canvas["late"])
        candidates = [canvas["uid"], canvas["name"]]
        resubmitted = _RESUBMITTED.match(name)
        if resubmitted:
            name = resubmitted["stem"] + resubmitted["ext"]
    else:
        tokens = [t for part in path.parts for t in re.split(r"[_\s]+", PurePosixPath(part).stem) if t]
        candidates = list(path.parts[:-1]) + [path.stem] + tokens
    return Entry(info.filename, name, candidates, when, late)


def match_entry(entry: Entry, keys: dict[str, list[str]]) -> list[str]:
    for candidate in entry.candidates:
        found = keys.get(candidate.strip().lower())
        if found:
            return found
    return []


def _existing_timestamp(folder: Path) -> dt.datetime | None:
    return timestamp_value(read_timestamp(folder).text)


def collect_zip(
    course: Course,
    assignment: str,
    archive: Path,
    roster: Path | None = None,
    match: str = "id",
    timezone: str = "UTC",
    limits: ArchiveLimits = ArchiveLimits(),
) -> CollectReport:
    """Import an LMS bulk download into submitted/<student>/<assignment>/.

    The archive is the students' as much as the LMS's: its entries are checked
    (:func:`gradekit.untrusted.require_archive_entry`: sizes, compression ratio,
    paths) and read with a hard cap, whatever their headers claim.
    """
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from gradekit.gradebook.read import students as gradebook_students

    try:
        tz = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise LMSError(f"unknown time zone {timezone!r} (e.g. UTC, Europe/Berlin)") from None
    course.source_dir(assignment)  # a valid assignment id
    keys, roster_ids = read_roster(course, roster, match)
    known = set(gradebook_students(course))
    try:
        zf = zipfile.ZipFile(archive)
    except FileNotFoundError:
        raise LMSError(f"{archive} does not exist") from None
    except (zipfile.BadZipFile, IsADirectoryError, OSError):
        raise LMSError(f"{archive} is not a zip file") from None
    report = CollectReport()
    chosen: dict[str, dict[str, tuple[Entry, zipfile.ZipInfo]]] = {}  # student -> filename -> newest entry
    with zf:
        infos = zf.infolist()
        require_archive(infos, limits)
        for info in infos:
            if info.is_dir():
                continue
            refused = require_archive_entry(info, limits)
            if refused:
                report.refused.append(refused)
                continue
            entry = parse_entry(info, tz)
            if entry is None:
                continue
            found = match_entry(entry, keys)
            if not found:
                report.unmatched.append(entry.path)
                continue
            if len(found) > 1:
                report.ambiguous[entry.path] = found
                continue
            student = found[0]
            if student not in known:
                report.not_in_gradebook[entry.path] = student
                continue
            try:
                require_id("student", student)
            except GradekitError:
                report.unmatched.append(entry.path)
                continue
            files = chosen.setdefault(student, {})
            old = files.get(entry.filename)
            if old is None or entry.when > old[0].when:
                files[entry.filename] = (entry, info)
        for student, files in sorted(chosen.items()):
            when = max(e.when for e, _ in files.values())
            folder = course.submitted_dir(student, assignment)
            existing = _existing_timestamp(folder)
            if existing is not None and existing >= when.replace(tzinfo=None):
                report.kept_newer[student] = existing.strftime(TIMESTAMP_FORMAT)
                continue
            tmp = folder.parent / f".{assignment}.importing"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            for name, (_entry, info) in sorted(files.items()):
                try:
                    safe = require_file_name(name)
                    (tmp / safe).write_bytes(read_archive_entry(zf, info, limits))
                except SubmissionError as exc:
                    report.refused.append(str(exc))
            (tmp / "timestamp.txt").write_text(when.strftime(TIMESTAMP_FORMAT))
            if folder.exists():
                shutil.rmtree(folder)
            tmp.rename(folder)
            report.imported[student] = sorted(files)
            if any(e.late for e, _ in files.values()):
                report.late.append(student)
    everyone = sorted(known if roster is None else set(roster_ids) & known)
    report.missing = [s for s in everyone if s not in chosen]
    return report
