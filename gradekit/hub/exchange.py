"""The hub exchange: a JupyterHub service that knows students by their hub login.

For hubs where every student's server is the same account (``jovyan`` on Zero to JupyterHub and
DockerSpawner) and shares no disk with the others: who handed in is the hub user whose token came
with the request (the service asks the hub, gradekit.hub.auth), never a name a student writes; when
is the service's own clock. Its records and files are in the store (gradekit.hub.store), a folder
only the service's account reads. The API is gradekit.handout.hubwire's.

Who may do what
    A caller needs a token the hub knows that may use this service
    (``access:services!service=<name>``). A student reads only their own release and feedback,
    lists only their own hand-ins, and hands in only as themselves; a hand-in is never replaced
    (a student hands in again). The course's instructors -- their token carries the course's
    instructor scope (gradekit.hub.auth.instructor_scope), the course's own services' too -- release,
    take the hand-ins in and give the feedback back. Every refusal is one line, to the caller (a JSON
    ``error``) and in the service's log; a refused hand-in under a classmate's name is recorded, so
    the course's ledger reports it as the filesystem exchange's does.

Limits (:class:`Limits`, each a command-line option of ``gradekit hub-exchange``)
    a hand-in holds at most ``max_mb`` MiB (20) in at most ``max_files`` files (50), unpacked; a
    student tries to hand in at most ``per_minute`` times a minute (10), refused tries included,
    and sends at most ``at_once`` hand-ins at the same time (2). Going over is refused with what the
    limit is, before anything is read or recorded (gradekit.hub.gate); what was handed in before
    stays, and the class is unharmed.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

from tornado import locks, web

from gradekit.hub.auth import CallerAPI, instructor_scope
from gradekit.hub.gate import Gate, Spool
from gradekit.hub.store import Handin as StoredHandin
from gradekit.hub.store import Store, now, stamp

NAME = "gradekit-exchange"
_KEY = re.compile(r"^[A-Za-z0-9_-]{8,128}$")


@dataclass(frozen=True)
class Limits:
    max_mb: float = 20.0
    max_files: int = 50
    per_minute: int = 10  # tries to hand in, refused ones included
    at_once: int = 2  # hand-ins of one student arriving at the same time

    @property
    def max_bytes(self) -> int:
        return int(self.max_mb * (1 << 20))

    @property
    def drained(self) -> int:
        """The largest body the server reads (and drops) to answer a refusal in one line; past it, it
        closes the connection."""
        return max(4 * self.max_bytes, 64 << 20)

    def to_dict(self) -> dict:
        return {
            "max_mb": self.max_mb,
            "max_files": self.max_files,
            "per_minute": self.per_minute,
            "at_once": self.at_once,
        }


def say(line: str) -> None:
    print(f"{now():%H:%M:%S} {line}", file=sys.stdout, flush=True)


def _names_of(data: bytes) -> list[str]:
    """The notebooks of a release zip (stored by the service itself, so trusted)."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return sorted(n.rsplit("/", 1)[-1][: -len(".ipynb")] for n in zf.namelist() if n.endswith(".ipynb"))


def _refusal_first(method):
    """``method``, unless the request was refused when it came in: then that refusal."""

    @functools.wraps(method)
    def handle(self, *args, **kwargs):
        if self._refusal is not None:
            raise self._refusal
        return method(self, *args, **kwargs)

    return handle


@web.stream_request_body
class _Handler(CallerAPI):
    """Any caller the hub knows who may use the service; the course in the path must be ours.

    Every request's body streams in after the caller is let in (tornado would otherwise read it
    whole before anything is asked): kept for an instructor (a release, feedback), dropped for anyone
    else, whose requests carry none. A request refused as it comes in (:meth:`let_in`) is answered
    once its body is in, read and dropped (up to Limits.drained): answered before, the connection
    would be closed under the body still arriving, and the sender -- the hub's proxy first -- would
    read an error of its own instead of the one line."""

    fresh = True  # ask the hub every time: a revoked token is refused at once
    _kept: list[bytes] | None = None  # the body, for a caller who may send one
    _received = 0
    _refusal: web.HTTPError | None = None  # why the request was refused as it came in
    _close_now = False  # refused without reading its body (its sender has too many arriving)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("get", "put", "post", "delete", "patch"):
            if name in cls.__dict__:
                setattr(cls, name, _refusal_first(cls.__dict__[name]))

    async def prepare(self) -> None:
        try:
            await self.let_in()
        except web.HTTPError as exc:
            length = self.request.headers.get("Content-Length", "0")
            chunked = "chunked" in self.request.headers.get("Transfer-Encoding", "").lower()
            if (
                self._close_now
                or (not chunked and (not length.isdigit() or int(length) == 0))
                or (length.isdigit() and int(length) > self.limits.drained)  # cut off anyway: the line first
            ):
                raise
            self._refusal, self._kept = exc, None

    async def let_in(self) -> None:
        """Who calls (the hub says), and whether they may use the service: a refusal raised here is
        answered once the request's body is in."""
        await super().prepare()

    def data_received(self, chunk: bytes) -> None:
        self._received += len(chunk)
        if self._kept is not None and self._received <= self.limits.drained:
            self._kept.append(chunk)

    @property
    def body(self) -> bytes:
        """The request's body, as an instructor sent it."""
        if self._received > self.limits.drained:
            self.refuse(413, f"the body is over {self.limits.drained >> 20} MiB")
        return b"".join(self._kept or [])

    @property
    def store(self) -> Store:
        return self.settings["gradekit_store"]

    @property
    def limits(self) -> Limits:
        return self.settings["gradekit_limits"]

    async def admit(self) -> None:
        await super().admit()
        assert self.caller is not None
        service = self.settings["gradekit_service"]
        if not (self.caller.may(f"access:services!service={service}") or self.instructor):
            self.refuse(403, f"{self.caller.name}'s token may not use the service {service}")
        if self.instructor:
            self._kept = []

    @property
    def instructor(self) -> bool:
        assert self.caller is not None
        return self.caller.instructs(self.course_id)

    after: dict[str, str] = {}  # headers for a refusal (tornado clears the others when it sends an error)

    def log_exception(self, typ, value, tb) -> None:
        if not isinstance(value, web.HTTPError):  # a refusal said its own line (refuse): no second one
            super().log_exception(typ, value, tb)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        for name, value in self.after.items():
            self.set_header(name, value)
        super().write_error(status_code, **kwargs)

    def refuse(self, status: int, line: str, who: str = "", log: bool = True, note: str = "") -> NoReturn:
        who = who or (self.caller.name if self.caller is not None else "?")
        if log:
            say(f"refused {who}: {self.request.method} {self.request.path}: {line}{note}")
        raise web.HTTPError(status, line)

    def check_course(self, course: str) -> None:
        if course != self.course_id:
            self.refuse(404, f"this hub exchange serves {self.course_id}, not {course}")

    def require_instructor(self, what: str) -> None:
        if not self.instructor:
            assert self.caller is not None
            self.refuse(
                403,
                f"{self.caller.name} may not {what}: only the instructors of {self.course_id} may "
                f"(their token carries {instructor_scope(self.course_id)})",
            )

    def whose(self, what: str) -> str:
        """The user a student's request is for: the caller; another user's (?user=) only for an instructor."""
        assert self.caller is not None
        user = self.get_argument("user", self.caller.name)
        if user != self.caller.name and not self.instructor:
            self.refuse(403, f"{self.caller.name} may not read {user}'s {what}: a student reads only their own")
        return user

    def send_json(self, value: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(value, ensure_ascii=False))

    def send_zip(self, data: bytes) -> None:
        self.set_header("Content-Type", "application/zip")
        self.finish(data)


class PingHandler(_Handler):
    def get(self, course: str) -> None:
        self.check_course(course)
        assert self.caller is not None
        answer = {
            "course": self.course_id,
            "caller": self.caller.name,
            "instructor": self.instructor,
            "instructor_scope": instructor_scope(self.course_id),
            "limits": self.limits.to_dict(),
        }
        if self.instructor:  # where its files are, for gradekit doctor to check who can read them
            answer["store"] = str(self.store.folder)
        self.send_json(answer)


class AssignmentsHandler(_Handler):
    """What the caller may list."""

    def get(self, course: str) -> None:
        self.check_course(course)
        self.send_json(
            {
                "assignments": listing(self.store, self.course_id, self.whose("hand-ins")),
                "limits": self.limits.to_dict(),
            }
        )


def listing(store: Store, course: str, user: str) -> list[dict]:
    """``user``'s own releases, hand-ins and feedback (what gradekit.handout.base.Listed holds, and the
    notebooks and checksums nbgrader's list shows)."""
    released = {a for a, users in store.releases(course, user).items() if user in users}
    mine = store.handins(course, user=user)
    feedback = store.feedback([h.id for h in mine], with_html=False)
    out = []
    for assignment in sorted(released | {h.assignment for h in mine}):
        data = store.released_to(course, assignment, user) if assignment in released else None
        out.append(
            {
                "assignment": assignment,
                "released": assignment in released,
                "notebooks": _names_of(data) if data else [],
                "handins": [
                    {
                        **h.meta(sorted(feedback.get(h.id, {}))),
                        "checksums": {nb: p["checksum"] for nb, p in feedback.get(h.id, {}).items()},
                    }
                    for h in mine
                    if h.assignment == assignment
                ],
            }
        )
    return out


class ReleaseHandler(_Handler):
    """GET: the caller's own release; PUT (instructors): one student's release."""

    def get(self, course: str, assignment: str, user: str | None = None) -> None:
        self.check_course(course)
        who = user or self.whose("release")
        if user is not None and user != self.caller.name:  # type: ignore[union-attr]
            self.require_instructor(f"read {user}'s release")
        data = self.store.released_to(self.course_id, assignment, who)
        if data is None:
            self.refuse(
                404,
                f"{assignment!r} has no notebook for {who!r} (not on the class list when it was released?): "
                "ask your instructor",
            )
        self.send_zip(data)

    def put(self, course: str, assignment: str, user: str | None = None) -> None:
        from gradekit.errors import SubmissionError
        from gradekit.intake.untrusted import HandinLimits, is_valid_id, read_handin_zip

        self.check_course(course)
        self.require_instructor("release an assignment")
        if not user or not is_valid_id(user) or not is_valid_id(assignment):
            self.refuse(400, "a release is PUT to release/<assignment>/<user>")
        try:
            read_handin_zip(self.body, HandinLimits(max_bytes=1 << 30, max_files=10_000))
        except SubmissionError as exc:
            self.refuse(400, f"the release is not a zip of files: {exc}")
        force = self.get_argument("force", "") in ("1", "true")
        if not self.store.release(self.course_id, assignment, user, self.body, force):
            self.refuse(409, f"{user} already has {assignment} in the exchange, add --force to overwrite")
        self.send_json({"released": user, "assignment": assignment})


class ReleasesHandler(_Handler):
    def get(self, course: str) -> None:
        self.check_course(course)
        self.require_instructor("list the releases")
        self.send_json(self.store.releases(self.course_id))


class HandinsHandler(_Handler):
    """GET (instructors): the hand-ins after a number, waiting for one."""

    async def get(self, course: str) -> None:
        self.check_course(course)
        self.require_instructor("list the hand-ins")
        after = int(self.get_argument("after", "0") or 0)
        wait = min(float(self.get_argument("wait", "0") or 0), 60.0)
        deadline = now() + dt.timedelta(seconds=wait)
        arrived: locks.Condition = self.settings["gradekit_arrived"]
        while True:
            found = self.store.handins(self.course_id, after)
            if found or now() >= deadline:
                break
            await arrived.wait(timeout=dt.timedelta(seconds=min(1.0, (deadline - now()).total_seconds())))
        self.send_json({"handins": [h.meta() for h in found]})


class HandinHandler(_Handler):
    """POST <assignment>: a hand-in of it as the caller; GET <number> (instructors): one hand-in's files.
    Nobody replaces or deletes a hand-in.

    A hand-in is admitted before its body is read (gradekit.hub.gate): the caller's rate, refused
    tries included, how many of theirs are arriving, then who it is for, its key, its announced size
    and its release; its body then streams into a Spool, never held whole in memory while it
    arrives. A refused one's body is dropped as it arrives, and the refusal answered at its end."""

    _spool: Spool | None = None
    _slot: str | None = None  # the user whose upload this request counts as, while it arrives
    _again: StoredHandin | None = None  # the hand-in this one is sent again (its key's)

    @property
    def gate(self) -> Gate:
        return self.settings["gradekit_gate"]

    async def let_in(self) -> None:
        token = ""
        if self.request.method == "POST":
            token = self.hub_auth.get_token(self, in_cookie=False) or ""
            known = self.gate.known(token)
            if known is not None:  # over their rate: refused without asking the hub
                self._hold(known)
                self._over(known, self.gate.wait(known))
        await super().let_in()
        if self.request.method == "POST":
            assert self.caller is not None
            self.gate.saw(token, self.caller.name)
            self._admit(self.path_args[1])

    def _hold(self, user: str) -> None:
        """One of ``user``'s hand-ins at once, admitted or refused (a refusal is answered once its body is
        in: it holds the connection meanwhile); past ``Limits.at_once`` refused and closed at once."""
        if self._slot is not None:
            return
        if not self.gate.take(user):
            self._close_now = True
            self.refuse(
                429,
                f"{self.gate.sending(user)} hand-ins of yours are arriving already, the limit is "
                f"{self.limits.at_once} at once: wait for them, then hand in again",
                who=user,
                log=self.gate.loud(user, "at once"),
                note=" (more of these this minute are not logged)",
            )
        self._slot = user

    def _over(self, user: str, wait: int) -> NoReturn:
        self.after = {"Retry-After": str(wait)}
        line = (
            f"too many hand-ins: the limit is {self.limits.per_minute} a minute, refused ones included: "
            f"hand in again in {wait} s (your earlier hand-ins are all kept)"
        )
        loud = self.gate.loud(user, "rate")
        self.refuse(429, line, who=user, log=loud, note=" (more of these this minute are not logged)")

    def _admit(self, assignment: str) -> None:
        """Refuse a hand-in that may not be sent now, before its body is read (see the class's docstring)."""
        from gradekit.intake.untrusted import is_valid_id

        assert self.caller is not None
        user = self.caller.name
        self.check_course(self.path_args[0])
        if self.caller.kind != "user":
            self.refuse(403, f"{user} is a service: only a hub user hands in")
        since = now() - dt.timedelta(seconds=60)
        ages = [(now() - _when(t)).total_seconds() for t in self.store.recent(self.course_id, user, since)]
        wait = self.gate.wait(user, ages)
        if wait:
            self._over(user, wait)
        self.gate.tried(user)  # every try counts from here on, refused or not
        self._hold(user)
        if not is_valid_id(assignment):
            self.refuse(400, f"invalid assignment id {assignment!r}")
        key = self.request.headers.get("X-Gradekit-Key", "")
        if not _KEY.match(key):
            self.refuse(400, "a hand-in needs an X-Gradekit-Key header of 8 to 128 letters, digits, _ and -")
        named = self.get_argument("user", user)
        if named != user:
            self.store.handin(
                self.course_id,
                assignment,
                user,
                key,
                None,
                None,
                named=named,
                kind="impersonation",
                problem=f"handed in under another student's name: named for {named}, handed in by the hub user {user}",
            )
            self.settings["gradekit_arrived"].notify_all()
            self.refuse(403, f"{user} may not hand in as {named}: a hand-in counts for whoever's token sent it")
        self._again = self.store.by_key(self.course_id, user, key)
        if self._again is not None:  # the answer to this hand-in was lost: it is the same one (its body dropped)
            return
        announced = int(self.request.headers.get("Content-Length") or 0)
        if announced > self.limits.max_bytes:
            self._too_large(announced)
        if not self.store.releases(self.course_id, user).get(assignment):
            self.refuse(404, f"{assignment!r} was not released to {user}: fetch it first, or ask your instructor")
        self._spool = Spool(self.store.folder / "incoming", self.limits.max_bytes)

    def _too_large(self, size: int) -> NoReturn:
        self.refuse(
            413,
            f"the hand-in is {size / (1 << 20):.1f} MiB, over the limit of "
            f"{self.limits.max_mb:g} MiB: leave out large data files and hand in again",
        )

    def data_received(self, chunk: bytes) -> None:
        if self._spool is not None:
            self._spool.write(chunk)

    def _release(self) -> None:
        if self._slot is not None:
            self.gate.give(self._slot)
            self._slot = None
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def on_finish(self) -> None:
        self._release()

    def on_connection_close(self) -> None:
        self._release()

    def post(self, course: str, assignment: str) -> None:
        from gradekit.errors import SubmissionError
        from gradekit.intake.untrusted import HandinLimits, read_handin_zip

        if self._again is not None:
            self.send_json({**self._again.meta(), "again": True})
            return
        assert self.caller is not None and self._spool is not None
        user = self.caller.name
        if self._spool.over:
            self._too_large(self._spool.size)
        data = self._spool.read()
        key = self.request.headers["X-Gradekit-Key"]
        try:
            files = read_handin_zip(data, HandinLimits(self.limits.max_bytes, self.limits.max_files))
        except SubmissionError as exc:
            self.refuse(413 if "limit" in str(exc) else 400, f"hand-in refused: {exc}")
        claimed = _claimed(files.get("timestamp.txt"))
        handin, _new = self.store.handin(self.course_id, assignment, user, key, data, files, claimed)
        self.settings["gradekit_arrived"].notify_all()
        say(
            f"received {user} {assignment} as hand-in {handin.id} ({handin.nfiles} file(s), "
            f"{(handin.size or 0) / 1024:.0f} KiB, sha256 {(handin.sha256 or '')[:12]})"
        )
        self.send_json(handin.meta(), 201)

    def get(self, course: str, number: str) -> None:
        self.check_course(course)
        self.require_instructor("read a hand-in's files")
        handin = self.store.get(self.course_id, int(number)) if number.isdigit() else None
        if handin is None or handin.blob is None:
            self.refuse(404, f"no hand-in {number} with files in {self.course_id} (hand-ins are numbered)")
        self.send_zip(self.store.blob(handin.blob))

    def _never(self, course: str, number: str) -> None:
        self.check_course(course)
        self.refuse(403, "a hand-in is never replaced or deleted: hand in again (the latest counts)")

    put = delete = patch = _never


def _when(text: str) -> dt.datetime:
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f UTC")


def _claimed(raw: bytes | None) -> dt.datetime | None:
    from gradekit.intake.untrusted import parse_utc

    text = (raw or b"").decode("utf-8", "replace").strip()
    if not text or len(text) > 256:
        return None
    try:
        return parse_utc(text)
    except (ValueError, OverflowError):
        return None


class FeedbackHandler(_Handler):
    """GET <assignment>: the caller's own feedback; PUT <hand-in number> (instructors): a hand-in's pages."""

    def get(self, course: str, assignment: str) -> None:
        self.check_course(course)
        user = self.whose("feedback")
        mine = [h for h in self.store.handins(self.course_id, user=user) if h.assignment == assignment]
        pages = self.store.feedback([h.id for h in mine])
        self.send_json(
            {
                "feedback": [
                    {"handin": h.name, "id": h.id, "timestamp": h.received, "notebook": nb, **page}
                    for h in mine
                    for nb, page in sorted(pages.get(h.id, {}).items())
                ]
            }
        )

    def put(self, course: str, number: str) -> None:
        self.check_course(course)
        self.require_instructor("give feedback")
        handin = self.store.get(self.course_id, int(number)) if number.isdigit() else None
        if handin is None or handin.problem is not None:
            self.refuse(404, f"no accepted hand-in {number} in {self.course_id}")
        try:
            pages = json.loads(self.body)["pages"]
            assert isinstance(pages, dict) and all(isinstance(v, str) for v in pages.values())
        except (ValueError, KeyError, TypeError, AssertionError):
            self.refuse(400, 'feedback is PUT as {"pages": {notebook: html}}')
        self.store.give_feedback(handin, pages)
        self.send_json({"handin": number, "notebooks": sorted(pages)})


class ListingHandler(_Handler):
    def get(self, course: str, user: str) -> None:
        self.check_course(course)
        self.require_instructor(f"list {user}'s hand-ins")
        self.send_json({"assignments": listing(self.store, self.course_id, user)})


def routes(prefix: str) -> list[tuple[str, type]]:
    api = prefix.rstrip("/") + "/api/([^/]+)"
    part = "([^/]+)"
    return [
        (f"{api}/ping", PingHandler),
        (f"{api}/assignments", AssignmentsHandler),
        (f"{api}/releases", ReleasesHandler),
        (f"{api}/release/{part}", ReleaseHandler),
        (f"{api}/release/{part}/{part}", ReleaseHandler),
        (f"{api}/handins", HandinsHandler),
        (f"{api}/handins/{part}", HandinHandler),  # POST: an assignment's name (digits too); GET: a number
        (f"{api}/feedback/{part}", FeedbackHandler),
        (f"{api}/listing/{part}", ListingHandler),
    ]


def _access(handler: web.RequestHandler) -> None:
    """tornado's access log, for what no line of the service's says: a request that failed."""
    if handler.get_status() >= 500:
        say(f"{handler.get_status()} {handler.request.method} {handler.request.path}")


def application(course_id: str, store: Store, limits: Limits, service: str = NAME, **settings) -> web.Application:
    """The service's tornado Application; ``settings`` are gradekit.hub.auth.service_settings'."""
    import os

    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX") or f"/services/{service}/"
    return web.Application(
        routes(prefix),
        log_function=_access,
        gradekit_store=store,
        gradekit_limits=limits,
        gradekit_service=service,
        gradekit_arrived=locks.Condition(),
        gradekit_gate=Gate(limits.per_minute, limits.at_once),
        **settings,
    )


def serve(course_id: str, store_dir: str, db_url: str, limits: Limits, bind: str = "") -> int:
    """``gradekit hub-exchange``: run the service until SIGTERM or SIGINT (the hub starts it)."""
    import asyncio
    import os
    import signal
    import urllib.parse

    from tornado.httpserver import HTTPServer

    from gradekit.hub.auth import service_settings

    os.umask(0o077)  # whatever it writes (SQLite's journal too) is the service's account's alone
    service = os.environ.get("JUPYTERHUB_SERVICE_NAME") or NAME
    store = Store(store_dir, db_url)
    app = application(course_id, store, limits, service, **service_settings(course_id))
    url = urllib.parse.urlparse(bind or os.environ.get("JUPYTERHUB_SERVICE_URL") or "http://127.0.0.1:10101")
    server = None

    async def main() -> None:
        nonlocal server
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        # a refused hand-in's body is read and dropped (never kept) up to Limits.drained, so that its sender
        # reads the one line; a larger one is cut off
        server = HTTPServer(app, max_body_size=limits.drained, body_timeout=300, xheaders=True)
        server.listen(url.port or 80, url.hostname or "127.0.0.1")
        say(
            f"hub exchange of {course_id} on {url.geturl()} ({app.settings['gradekit_service']}), records in "
            f"{store.engine.url.render_as_string(hide_password=True)}, files in {store.folder}; limits "
            f"{limits.max_mb:g} MiB and {limits.max_files} files a hand-in, {limits.per_minute} tries a minute, "
            f"{limits.at_once} at once"
        )
        await stop.wait()
        server.stop()

    try:
        asyncio.run(main())
    finally:
        store.close()
    say("stopped")
    return 0


__all__ = ["Limits", "application", "serve", "routes", "listing", "stamp"]
