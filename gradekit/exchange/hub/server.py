"""The hub exchange: a JupyterHub service that knows students by their hub login.

For hubs where every student's server is the same account (``jovyan`` on Zero to JupyterHub and
DockerSpawner) and shares no disk with the others: who handed in is the hub user whose token came
with the request (the service asks the hub, gradekit.web.auth), never a name a student writes; when
is the service's own clock. Its records and files are in the store (gradekit.exchange.hub.store), a folder
only the service's account reads. The API is gradekit.exchange.hub.wire's: its routes, statuses,
headers and limits are written there once, for the server and the clients alike.

Who may do what
    A caller needs a token the hub knows that may use this service
    (``access:services!service=<name>``). A student reads only their own release and feedback,
    lists only their own hand-ins, and hands in only as themselves; a hand-in is never replaced
    (a student hands in again). The course's instructors -- their token carries the course's
    instructor scope (gradekit.web.auth.instructor_scope), the course's own services' too -- release,
    take the hand-ins in and give the feedback back. Every refusal is one line, to the caller (a JSON
    ``error``) and in the service's log; a refused hand-in under a classmate's name is recorded, so
    the course's ledger reports it as the filesystem exchange's does.

Limits (:class:`gradekit.exchange.hub.wire.Limits`, each a command-line option of ``gradekit hub-exchange``)
    a hand-in holds at most ``max_mb`` MiB (20) in at most ``max_files`` files (50), unpacked; a
    student tries to hand in at most ``per_minute`` times a minute (10), refused tries included,
    and sends at most ``at_once`` hand-ins at the same time (2); they read (list, fetch, fetch
    feedback) at most ``reads_per_minute`` times a minute (120; instructors and the course's
    services are not counted). Going over is refused with what the limit is, before anything is
    read or recorded (gradekit.exchange.hub.gate); what was handed in before stays, and the class is unharmed.

Its parts: gradekit.exchange.hub.api (the limits, the log, the handlers' common ground), gradekit.exchange.hub.handins
(hand-ins in), gradekit.exchange.hub.gate (the rate, uploads at once, bodies spooled), gradekit.exchange.hub.store
(records and files); here the releases, the feedback, the listings, and the service itself.
"""

from __future__ import annotations

import json

from tornado import locks, web

from gradekit.exchange.hub import wire
from gradekit.exchange.hub.api import Handler, say
from gradekit.exchange.hub.gate import Gate
from gradekit.exchange.hub.handins import HandinHandler, HandinsHandler
from gradekit.exchange.hub.store import Store
from gradekit.exchange.hub.wire import SERVICE, Limits, Status
from gradekit.web.auth import instructor_scope


def _names_of(data: bytes) -> list[str]:
    """The notebooks of a release zip (stored by the service itself, so trusted)."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return sorted(n.rsplit("/", 1)[-1][: -len(".ipynb")] for n in zf.namelist() if n.endswith(".ipynb"))


class PingHandler(Handler):
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


class AssignmentsHandler(Handler):
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
    """``user``'s own releases, hand-ins and feedback (what gradekit.exchange.base.Listed holds, and the
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
                    h.meta(
                        sorted(feedback.get(h.id, {})), {nb: p["checksum"] for nb, p in feedback.get(h.id, {}).items()}
                    ).to_json()
                    for h in mine
                    if h.assignment == assignment
                ],
            }
        )
    return out


class ReleaseHandler(Handler):
    """GET: the caller's own release; PUT (instructors): one student's release."""

    def get(self, course: str, assignment: str, user: str | None = None) -> None:
        self.check_course(course)
        who = user or self.whose("release")
        if user is not None and user != self.caller.name:  # type: ignore[union-attr]
            self.require_instructor(f"read {user}'s release")
        data = self.store.released_to(self.course_id, assignment, who)
        if data is None:
            self.refuse(
                Status.NOT_FOUND,
                f"{assignment!r} has no notebook for {who!r} (not on the class list when it was released?): "
                "ask your instructor",
            )
        self.send_zip(data)

    def put(self, course: str, assignment: str, user: str | None = None) -> None:
        from gradekit.errors import SubmissionError
        from gradekit.untrusted import HandinLimits, is_valid_id, read_handin_zip

        self.check_course(course)
        self.require_instructor("release an assignment")
        if not user or not is_valid_id(user) or not is_valid_id(assignment):
            self.refuse(Status.BAD_REQUEST, "a release is PUT to release/<assignment>/<user>")
        try:
            read_handin_zip(self.body, HandinLimits(max_bytes=1 << 30, max_files=10_000))
        except SubmissionError as exc:
            self.refuse(Status.BAD_REQUEST, f"the release is not a zip of files: {exc}")
        force = self.get_argument("force", "") in ("1", "true")
        if not self.store.release(self.course_id, assignment, user, self.body, force):
            self.refuse(Status.CONFLICT, f"{user} already has {assignment} in the exchange, add --force to overwrite")
        self.send_json({"released": user, "assignment": assignment})


class ReleasesHandler(Handler):
    def get(self, course: str) -> None:
        self.check_course(course)
        self.require_instructor("list the releases")
        self.send_json(self.store.releases(self.course_id))


class FeedbackHandler(Handler):
    """GET <assignment>: the caller's own feedback; PUT <hand-in number> (instructors): a hand-in's pages."""

    def get(self, course: str, assignment: str) -> None:
        self.check_course(course)
        user = self.whose("feedback")
        mine = [h for h in self.store.handins(self.course_id, user=user) if h.assignment == assignment]
        pages = self.store.feedback([h.id for h in mine])
        self.send_json(
            {
                "feedback": [
                    {"handin": h.meta().name, "id": h.id, "timestamp": h.received, "notebook": nb, **page}
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
            self.refuse(
                Status.NOT_FOUND, f"no record {number} of the hub exchange in {self.course_id} is an accepted hand-in"
            )
        try:
            pages = json.loads(self.body)["pages"]
            assert isinstance(pages, dict) and all(isinstance(v, str) for v in pages.values())
        except (ValueError, KeyError, TypeError, AssertionError):
            self.refuse(Status.BAD_REQUEST, 'feedback is PUT as {"pages": {notebook: html}}')
        self.store.give_feedback(handin, pages)
        self.send_json({"handin": number, "notebooks": sorted(pages)})


class ListingHandler(Handler):
    def get(self, course: str, user: str) -> None:
        self.check_course(course)
        self.require_instructor(f"list {user}'s hand-ins")
        self.send_json({"assignments": listing(self.store, self.course_id, user)})


HANDLERS: dict[wire.Route, type[Handler]] = {
    wire.PING: PingHandler,
    wire.ASSIGNMENTS: AssignmentsHandler,
    wire.RELEASES: ReleasesHandler,
    wire.RELEASE: ReleaseHandler,
    wire.RELEASE_TO: ReleaseHandler,
    wire.HANDINS: HandinsHandler,
    wire.HANDIN: HandinHandler,
    wire.FEEDBACK: FeedbackHandler,
    wire.LISTING: ListingHandler,
}


def routes(prefix: str) -> list[tuple[str, type]]:
    """The wire's routes (wire.ROUTES), each to its handler, under ``prefix``."""
    api = prefix.rstrip("/") + "/api/([^/]+)"
    return [(route.pattern(api), HANDLERS[route]) for route in wire.ROUTES]


UNLIMITED = 1 << 50  # bytes: tornado reads any body; the handlers keep what they may (api.Limits)


class NoRoute(web.RequestHandler):
    """Any path that is none of the routes: one line of JSON (tornado's own answer is an HTML page)."""

    def prepare(self) -> None:
        self.set_status(404)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(
            json.dumps({"error": f"no such route in the hub exchange: {self.request.method} {self.request.path}"})
        )

    def check_xsrf_cookie(self) -> None:  # a refusal only
        pass


def _access(handler: web.RequestHandler) -> None:
    """tornado's access log, for what no line of the service's says: a request that failed."""
    if handler.get_status() >= 500:
        say(f"{handler.get_status()} {handler.request.method} {handler.request.path}")


def application(course_id: str, store: Store, limits: Limits, service: str = SERVICE, **settings) -> web.Application:
    """The service's tornado Application; ``settings`` are gradekit.web.auth.service_settings'."""
    import asyncio
    import os

    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX") or f"/services/{service}/"
    return web.Application(
        routes(prefix),
        default_handler_class=NoRoute,
        log_function=_access,
        gradekit_store=store,
        gradekit_limits=limits,
        gradekit_service=service,
        gradekit_arrived=locks.Condition(),
        gradekit_stopping=asyncio.Event(),  # set when the service stops: the long polls answer at once
        gradekit_polls=set(),  # the long polls waiting for a hand-in
        gradekit_gate=Gate(limits.per_minute, limits.at_once),
        gradekit_reads=Gate(limits.reads_per_minute, at_once=0),
        **settings,
    )


STOP_GRACE = 2.0  # seconds the requests in flight get to finish when the service stops


async def run(app: web.Application, host: str, port: int, stop, listening=lambda: None) -> None:
    """Serve ``app`` on ``host``:``port`` (``listening()`` called once it listens) until the asyncio.Event
    ``stop`` is set, then stop cleanly: no
    new connection, every long poll for hand-ins answered at once with what it has (nothing), and the
    requests in flight given STOP_GRACE s to finish. (A poll still waiting when the loop ended was cut
    off with a 500 to ``gradekit serve`` at every clean stop of the hub.)"""
    import asyncio

    from tornado.httpserver import HTTPServer

    # a refused request's body is read to its end and dropped (never kept), so that its sender reads the
    # one line through the hub's proxy (tornado's own cut-off closes the connection without an answer,
    # and the proxy answers 503); one still arriving after body_timeout seconds is cut off
    server = HTTPServer(app, max_body_size=UNLIMITED, body_timeout=300, xheaders=True)
    server.listen(port, host)
    listening()
    await stop.wait()
    server.stop()
    app.settings["gradekit_stopping"].set()
    app.settings["gradekit_arrived"].notify_all()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STOP_GRACE
    while app.settings["gradekit_polls"] and loop.time() < deadline:
        await asyncio.sleep(0.02)


def serve(course_id: str, store_dir: str, db_url: str, limits: Limits, bind: str = "") -> int:
    """``gradekit hub-exchange``: run the service until SIGTERM or SIGINT (the hub starts it)."""
    import asyncio
    import os
    import signal
    import urllib.parse

    from gradekit.web.auth import service_settings
    from gradekit.web.lifetime import Hub

    os.umask(0o077)  # whatever it writes (SQLite's journal too) is the service's account's alone
    service = os.environ.get("JUPYTERHUB_SERVICE_NAME") or SERVICE
    store = Store(store_dir, db_url)
    app = application(course_id, store, limits, service, **service_settings(course_id))
    url = urllib.parse.urlparse(bind or os.environ.get("JUPYTERHUB_SERVICE_URL") or "http://127.0.0.1:10101")

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        Hub().watch(lambda: loop.call_soon_threadsafe(stop.set))  # its hub died: stop (its port is the next one's)
        await run(
            app,
            url.hostname or "127.0.0.1",
            url.port or 80,
            stop,
            lambda: say(
                f"hub exchange of {course_id} on {url.geturl()} ({app.settings['gradekit_service']}), records in "
                f"{store.engine.url.render_as_string(hide_password=True)}, files in {store.folder}; limits "
                f"{limits.max_mb:g} MiB and {limits.max_files} files a hand-in, {limits.per_minute} tries a minute, "
                f"{limits.at_once} at once, {limits.reads_per_minute} reads a minute"
            ),
        )

    try:
        asyncio.run(main())
    finally:
        store.close()
    say("stopped")
    return 0


__all__ = ["application", "serve", "run", "routes", "listing"]
