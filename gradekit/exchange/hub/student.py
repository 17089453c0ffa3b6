"""nbgrader's student commands on the hub exchange: what a student's server runs (the Assignments tab too).

Selected in the students' nbgrader_config.py (``gradekit student-config`` writes it)::

    c.Exchange... / c.ExchangeFactory.fetch_assignment = "gradekit.exchange.hub.student.HubFetchAssignment"
    ... submit = HubSubmit, list = HubList, fetch_feedback = HubFetchFeedback
    c.GradekitHubExchange.url = "https://hub.example.edu/services/gradekit-exchange/"

Each talks to the service (gradekit.exchange.hub.wire) with the student's own ``$JUPYTERHUB_API_TOKEN``;
the service knows who they are from it, so nothing here names a student, and nothing a student
changes here lets them act as another. A submit keeps nbgrader's local cache
(``<cache>/<course>/<student>+<assignment>+<time>/``), named by the service's time of receipt.
This module imports only nbgrader's exchange base classes and the standard library: nothing of
grading (a student's image carries none of it).
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import time
from pathlib import Path

from nbgrader.exchange.abc import (
    Exchange,
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeList,
    ExchangeSubmit,
)
from traitlets import Bool, Float, Unicode, default

from gradekit.exchange.hub import wire
from gradekit.exchange.hub.wire import KEY_HEADER, RETRIES, TOKEN_ENV, HubClient, HubError, Limits

HANDIN_FILE = "handin.json"  # in a submission's cache folder: what the service said of it
LIST_EVERY = 1.0  # seconds a listing is used again: the Assignments tab lists 4 times a Refresh
READ_TRIES = 3  # a read the hub's proxy could not pass on (not routed yet, the exchange restarting) is sent again

# url, course, token -> (when, the service's listing): one Refresh of the Assignments tab (its course list
# and its assignment list, each released and submitted) is one read, and a Refresh once a second is 60
# reads a minute, half the service's limit, whatever the pace (gradekit.exchange.hub.wire.Limits)
_LISTED: dict[tuple[str, str, str], tuple[float, list]] = {}
# url, course, token -> (until when, the line): a listing refused over the reads' rate is refused here, with
# the seconds left, until its Retry-After has passed: a Refresh asks the exchange nothing meanwhile, and the
# tab shows the line at once (asked, a refusal past 30 a minute is held a second: a Refresh once a second
# showed "Loading, please wait..." and never the line)
_REFUSED: dict[tuple[str, str, str], tuple[float, str]] = {}
_AGAIN = re.compile(r"\bin \d+ s\b")


def _write(path: Path, data: bytes) -> None:
    """A file of the student's own (0600), swapped in whole."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, path)


class GradekitHubExchange(Exchange):
    """What every command of the hub exchange shares: the service's URL, the student's token, the cache."""

    url = Unicode("", help="The hub exchange service's URL (gradekit student-config writes it)").tag(config=True)
    timeout = Float(60.0, help="Seconds to wait for the hub exchange to answer").tag(config=True)
    path_includes_course = Bool(
        False, help="Fetched assignments go in <course>/<assignment>/, as nbgrader's option does"
    ).tag(config=True)
    cache = Unicode("", help="Local cache of submissions (nbgrader's)").tag(config=True)

    @default("cache")
    def _default_cache(self) -> str:
        from jupyter_core.paths import jupyter_data_dir

        return os.path.join(jupyter_data_dir(), "nbgrader_cache")

    def client(self) -> HubClient:
        if not self.coursedir.course_id:
            self.fail("No course id specified. Re-run with --course flag.")
        try:
            return HubClient(self.url, self.coursedir.course_id, timeout=self.timeout)
        except HubError as exc:
            self.fail(str(exc))
            raise

    def call(self, method: str, path: str, **kw):
        for tried in range(READ_TRIES if method == "GET" else 1):
            try:
                return self.client().json(method, path, **kw)
            except HubError as exc:
                if not exc.transient or tried == READ_TRIES - 1 or method != "GET":
                    self.fail(str(exc))
            time.sleep(0.5 * (tried + 1))

    def listed(self) -> list[dict]:
        """The service's listing of the caller's releases and hand-ins (see _LISTED)."""
        key = (self.url, self.coursedir.course_id, os.environ.get(TOKEN_ENV, ""))
        kept = _LISTED.get(key)
        if kept is not None and time.monotonic() - kept[0] < LIST_EVERY:
            return kept[1]
        until, line = _REFUSED.get(key, (0.0, ""))
        if time.monotonic() < until:
            self.fail(_AGAIN.sub(f"in {math.ceil(until - time.monotonic())} s", line, count=1))
        _REFUSED.pop(key, None)
        try:
            found = self.client().json("GET", wire.ASSIGNMENTS.url())["assignments"]
        except HubError as exc:
            if exc.retry_after:
                _REFUSED[key] = (time.monotonic() + exc.retry_after, str(exc))
            if not exc.transient:
                self.fail(str(exc))
            found = self.call("GET", wire.ASSIGNMENTS.url())["assignments"]  # sent again, as every read is
        if len(_LISTED) > 64:
            _LISTED.clear()
        _LISTED[key] = (time.monotonic(), found)
        return found

    def changed(self) -> None:
        """What the service lists changed (a fetch, a hand-in, feedback fetched): the next listing asks."""
        _LISTED.clear()

    def folder(self, assignment: str) -> Path:
        base = Path(self.assignment_dir)
        return (base / self.coursedir.course_id if self.path_includes_course else base) / assignment

    def init_src(self) -> None:
        pass

    def init_dest(self) -> None:
        pass

    def copy_files(self) -> None:
        pass


class HubFetchAssignment(GradekitHubExchange, ExchangeFetchAssignment):
    """``nbgrader fetch_assignment``: my own release, from the service."""

    def copy_files(self) -> None:
        from gradekit.untrusted import HandinLimits, read_handin_zip

        assignment = self.coursedir.assignment_id
        dest = self.folder(assignment)
        if dest.exists() and not self.replace_missing_files:
            self.fail(f"You already have a copy of {assignment} in {dest}: rename or delete it to fetch it again")
        try:
            data = self.client().request("GET", wire.RELEASE.url(assignment=assignment))
        except HubError as exc:
            self.fail(str(exc))
        files = read_handin_zip(data, HandinLimits(max_bytes=1 << 30, max_files=10_000))
        for rel, content in files.items():
            target = dest / rel
            if self.replace_missing_files and target.exists():
                continue
            _write(target, content)
        self.changed()
        self.log.info("Fetched as: %s %s", self.coursedir.course_id, assignment)


class HubSubmit(GradekitHubExchange, ExchangeSubmit):
    """``nbgrader submit``: my fetched assignment, handed in as me (whoever my token says I am)."""

    def copy_files(self) -> None:
        from nbgrader.utils import ignore_patterns

        from gradekit.untrusted import pack_zip

        assignment = self.coursedir.assignment_id
        src = self.folder(assignment)
        if not src.is_dir():
            self.fail(f"You have not fetched {assignment} (no {src}): fetch it first")
        ignore = ignore_patterns(
            exclude=self.coursedir.ignore,
            include=self.coursedir.include,
            max_file_size=self.coursedir.max_file_size,
            log=self.log,
        )
        files: dict[str, bytes] = {}
        for dirname, dirnames, filenames in os.walk(src):
            skipped = set(ignore(dirname, dirnames + filenames))
            dirnames[:] = [d for d in dirnames if d not in skipped and d != "feedback"]
            for name in filenames:
                if name not in skipped:
                    path = Path(dirname, name)
                    files[str(path.relative_to(src))] = path.read_bytes()
        said = (self.call("GET", wire.PING.url()) or {}).get("limits")
        limits = Limits.from_dict(said) if said else None
        size, count = sum(len(v) for v in files.values()), len(files)
        if limits and count > limits.max_files:
            self.fail(f"{count} files in {src}, over the limit of {limits.max_files} a hand-in: remove some")
        if limits and size > limits.max_bytes:
            self.fail(
                f"{size / (1 << 20):.1f} MiB in {src}, over the limit of {limits.max_mb:g} MiB a hand-in: "
                "leave out large data files"
            )
        files["timestamp.txt"] = self.timestamp.encode()
        key = secrets.token_hex(16)
        body = pack_zip(files)
        client = self.client()
        for tried in range(RETRIES):
            try:
                meta = client.json("POST", wire.HANDIN.url(part=assignment), body=body, headers={KEY_HEADER: key})
                break
            except HubError as exc:
                if exc.refused or tried == RETRIES - 1:  # refused, or never reached: say why
                    self.fail(str(exc))
                time.sleep(1.0)  # the answer was lost: the same key is the same hand-in
        cache = Path(self.cache) / self.coursedir.course_id / f"{meta['user']}+{assignment}+{meta['timestamp']}"
        for rel, content in files.items():
            _write(cache / rel, meta["timestamp"].encode() if rel == "timestamp.txt" else content)
        _write(cache / HANDIN_FILE, json.dumps(meta).encode())
        self.changed()
        self.log.info("Submitted as: %s %s %s", self.coursedir.course_id, assignment, meta["timestamp"])


class HubList(GradekitHubExchange, ExchangeList):
    """``nbgrader list`` (and the Assignments tab): my releases, my hand-ins and their feedback."""

    one_course = True  # of the course in the server's settings alone: the tab's course list asks nothing

    def list_files(self):
        assignments = self.parse_assignments()
        if self.inbound or self.cached:
            self.log.info("Submitted assignments:")
            for assignment in assignments:
                for info in assignment["submissions"]:
                    state = (
                        " (feedback already fetched)"
                        if info["has_local_feedback"] and not info["feedback_updated"]
                        else " (feedback ready to be fetched)"
                        if info["has_exchange_feedback"]
                        else " (no feedback available)"
                    )
                    self.log.info(
                        "%s %s %s %s%s",
                        info["course_id"],
                        info["student_id"],
                        info["assignment_id"],
                        info["timestamp"],
                        state,
                    )
        else:
            self.log.info("Released assignments:")
            for info in assignments:
                already = " (already downloaded)" if info["status"] == "fetched" else ""
                self.log.info("%s %s%s", info["course_id"], info["assignment_id"], already)
        return assignments

    def remove_files(self):
        self.fail("the hub exchange keeps every hand-in: nothing is removed")

    def parse_assignments(self) -> list[dict]:
        import hashlib

        course = self.coursedir.course_id
        wanted = self.coursedir.assignment_id
        found = self.listed()
        out = []
        for a in found:
            assignment = a["assignment"]
            if wanted and assignment != wanted:
                continue
            local = self.folder(assignment)
            if not (self.inbound or self.cached):
                if not a["released"]:
                    continue
                fetched = local.is_dir()
                path = str(local.resolve()) if fetched else f"{self.url}{course}/{assignment}"
                out.append(
                    {
                        "course_id": course,
                        "assignment_id": assignment,
                        "status": "fetched" if fetched else "released",
                        "path": path,
                        "notebooks": [
                            {"notebook_id": nb, "path": str(Path(path, nb + ".ipynb"))} for nb in a["notebooks"]
                        ],
                    }
                )
                continue
            submissions = []
            for h in a["handins"]:
                cache = Path(self.cache) / course / f"{h['user']}+{assignment}+{h['timestamp']}"
                names = sorted(p.stem for p in cache.glob("*.ipynb")) or a["notebooks"]
                feedback_dir = local / "feedback" / h["timestamp"]
                notebooks = []
                for nb in names:
                    page = feedback_dir / f"{nb}.html"
                    here = page.is_file()
                    there = h["checksums"].get(nb)
                    updated = bool(here and there and hashlib.md5(page.read_bytes()).hexdigest() != there)
                    notebooks.append(
                        {
                            "notebook_id": nb,
                            "path": str(cache / f"{nb}.ipynb"),
                            "has_local_feedback": here,
                            "has_exchange_feedback": there is not None,
                            "local_feedback_path": str(page) if here else None,
                            "feedback_updated": updated,
                        }
                    )
                here_all = bool(notebooks) and all(n["has_local_feedback"] for n in notebooks)
                submissions.append(
                    {
                        "course_id": course,
                        "student_id": h["user"],
                        "assignment_id": assignment,
                        "timestamp": h["timestamp"],
                        "status": "submitted",
                        "path": str(cache),
                        "notebooks": notebooks,
                        "has_local_feedback": here_all,
                        "has_exchange_feedback": bool(notebooks) and all(n["has_exchange_feedback"] for n in notebooks),
                        "feedback_updated": any(n["feedback_updated"] for n in notebooks),
                        "local_feedback_path": str(feedback_dir) if here_all else None,
                    }
                )
            if submissions:
                out.append(
                    {
                        "course_id": course,
                        "student_id": submissions[0]["student_id"],
                        "assignment_id": assignment,
                        "status": "submitted",
                        "submissions": submissions,
                    }
                )
        return out


class HubFetchFeedback(GradekitHubExchange, ExchangeFetchFeedback):
    """``nbgrader fetch_feedback``: the pages of my hand-ins, each in feedback/<time it was received>/."""

    def copy_files(self) -> None:
        assignment = self.coursedir.assignment_id
        if not assignment:
            self.fail("Name the assignment whose feedback to fetch")
        pages = self.call("GET", wire.FEEDBACK.url(part=assignment))["feedback"]
        if not pages:
            self.log.warning("No feedback for %s yet", assignment)
        for page in pages:
            target = self.folder(assignment) / "feedback" / page["timestamp"] / f"{page['notebook']}.html"
            data = page["html"].encode("utf-8")
            if target.is_file() and target.read_bytes() == data:
                continue  # fetched before, unchanged
            _write(target, data)
            self.log.info("Fetched feedback: %s", target)
        self.changed()
