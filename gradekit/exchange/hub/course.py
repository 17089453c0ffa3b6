"""The hub exchange, as the course sees it: gradekit's JupyterHub exchange service, over its HTTP API.

    releases out    each student's release/<student>/<a>/ PUT to the service under their hub login
                    (the student's account: c.Gradekit.identities, else the student id)
    hand-ins in     the service's hand-ins, each for the hub user whose token handed it in, received at
                    the service's clock (gradekit.exchange.hub.server); a long poll tells of each the moment it
                    is accepted (its files fetched in the poll's own thread), and a full look every
                    RESCAN seconds catches anything it missed (a hand-in's files fetched the first time
                    anything reads them: the ledger never needs those of one it has seen)
    feedback back   a graded hand-in's pages (the student's copy) PUT to the service for that hand-in
                    alone (its reference: the service's number): only its student fetches them
    listing         what the service lets a student list

The course's calls carry a token of the course's instructors (``c.GradekitHubExchange.token_file``,
else ``$GRADEKIT_HUB_TOKEN``, else ``$JUPYTERHUB_API_TOKEN``: a ``gradekit serve`` the hub starts has
its own) to the service at ``c.GradekitHubExchange.url``.
"""

from __future__ import annotations

import functools
import os
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gradekit.exchange.base import CourseExchange, Events, Listed, Released
from gradekit.exchange.handin import Handin, HandinRef
from gradekit.exchange.hub import wire
from gradekit.exchange.hub.wire import HandinMeta, HubClient, HubError

if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt

RESCAN = 30.0  # seconds between full looks at the service's hand-ins, whatever the long poll said
WAIT = 20.0  # seconds one long poll waits for a hand-in
STOPPING_PAUSE = 5.0  # seconds before the next poll when the service said it is stopping
FEEDBACK_PATIENCE = 120.0  # seconds a graded hand-in's feedback waits for a service being started again
PATIENCE = 30.0  # seconds a course's command waits for an exchange not reachable yet (its hub starting)
KIND = "hub"


def number_ref(number: int) -> HandinRef:
    """The reference of the service's hand-in ``number``."""
    return HandinRef(KIND, str(number), f"record {number} of the hub exchange")


def number_of(ref: HandinRef | None) -> int | None:
    """The service's number a reference of this exchange's names (None: another exchange's)."""
    if ref is None or ref.exchange != KIND or not ref.key.isdigit():
        return None
    return int(ref.key)


def settings_of(course) -> dict:
    return dict((course.config or {}).get("GradekitHubExchange", {}) or {})


def course_token(course) -> str:
    """The token the course calls the service with (see the module's docstring)."""
    from gradekit.errors import UsageError

    path = str(settings_of(course).get("token_file") or "")
    if path:
        file = Path(course.root, path)
        try:
            return file.read_text().strip()
        except OSError as exc:
            raise UsageError(f"c.GradekitHubExchange.token_file: {file} cannot be read ({exc.strerror})") from None
    token = os.environ.get("GRADEKIT_HUB_TOKEN") or os.environ.get(wire.TOKEN_ENV) or ""
    if not token:
        raise UsageError(
            "no token for the hub exchange: set c.GradekitHubExchange.token_file (a file holding a token of the "
            "course's instructors or its service), or $GRADEKIT_HUB_TOKEN"
        )
    return token


def _utc(text: str | None) -> dt.datetime | None:
    import datetime as dt

    return dt.datetime.strptime(text, wire.STAMP) if text else None


class _Files(Mapping):
    """A hand-in's files, fetched from the service the first time they are read."""

    def __init__(self, fetch: Callable[[], dict[str, bytes]]):
        self._fetch = fetch
        self._files: dict[str, bytes] | None = None

    def _all(self) -> dict[str, bytes]:
        if self._files is None:
            self._files = self._fetch()
        return self._files

    def __getitem__(self, key: str) -> bytes:
        return self._all()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class _LongPoll:
    """The service's hand-ins as they are accepted, their numbers on ``names`` (None: a full look)."""

    def __init__(self, exchange: HubExchange):
        self.exchange = exchange
        self.names: queue.Queue[str | None] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gradekit-serve-hub", daemon=True)

    def start(self) -> None:
        self.names.put(None)  # a first full look: what arrived while no service ran
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        import time

        client = self.exchange.fresh_client()
        last, rescan = None, time.monotonic()
        while not self._stop.is_set():
            try:
                if last is None:
                    found = self.exchange.learn(client.json("GET", wire.HANDINS.url())["handins"])
                    last = max((m.number for m in found), default=0)
                    continue
                answer = client.json("GET", wire.HANDINS.url(), query={"after": last, "wait": WAIT}, timeout=WAIT + 30)
                found = self.exchange.learn(answer["handins"])
            except (HubError, ValueError, KeyError):
                self._stop.wait(1.0)  # the service restarting: try again
                continue
            for meta in found:
                last = max(last, meta.number)
                if not meta.problem:  # its files fetched here, so that the service's loop never waits
                    try:
                        self.exchange.prefetched[meta.number] = wire.unpack(
                            client.request("GET", wire.HANDIN.url(part=meta.number))
                        )
                    except HubError:
                        pass  # fetched when it is read, then
                self.names.put(str(meta.number))
            if time.monotonic() - rescan >= RESCAN:
                self.names.put(None)
                rescan = time.monotonic()
            if answer.get(wire.STOPPING):  # the hub is stopping it (and this service next), or restarting it
                self._stop.wait(STOPPING_PAUSE)


class HubExchange(CourseExchange):
    """gradekit's hub exchange service, as the course calls it (see the module's docstring)."""

    kind = KIND
    label = "hub exchange"

    def __init__(self, course):
        super().__init__(course)
        self.url = str(settings_of(course).get("url") or "")
        self._client: HubClient | None = None
        self.meta: dict[int, HandinMeta] = {}  # hand-in number -> what the service said of it
        self.prefetched: dict[int, dict[str, bytes]] = {}  # hand-in number -> its files, fetched by the long poll
        self._identities = None

    @property
    def client(self) -> HubClient:
        if self._client is None:
            self._client = self.fresh_client()
        return self._client

    def fresh_client(self) -> HubClient:
        from gradekit.errors import UsageError

        try:
            return HubClient(self.url, self.course.course_id, course_token(self.course))
        except HubError as exc:
            raise UsageError(f"the hub exchange: {exc}") from None

    @property
    def identities(self):
        if self._identities is None:
            from gradekit.exchange.identity import Identities

            self._identities = Identities.of(self.course)
        return self._identities

    def _call(self, method: str, path: str, patience: float = PATIENCE, **kw):
        """The service's answer; a refusal is an ExchangeFailure with its line. A service that cannot
        be reached (being started again, or not yet routed by the hub's proxy) is asked again for up
        to ``patience`` seconds."""
        import time

        from gradekit.errors import ExchangeFailure

        deadline, pause = time.monotonic() + patience, 0.25
        while True:
            try:
                return self.client.json(method, path, **kw)
            except HubError as exc:
                if not exc.transient or time.monotonic() >= deadline:
                    raise ExchangeFailure(f"the hub exchange: {exc}") from None
            time.sleep(pause)
            pause = min(2 * pause, 2.0)

    # -- releases out ---------------------------------------------------------------------------
    def publish(self, assignment: str, force: bool = False, student: str | None = None) -> Released:
        from gradekit.errors import ExchangeFailure
        from gradekit.untrusted import pack_zip

        base = self.course.root / "release"
        students = (
            [student]
            if student
            else sorted(p.parent.name for p in base.glob(f"*/{assignment}") if p.is_dir() and p.parent.name != ".")
        )
        if not students:
            raise ExchangeFailure(
                f"No per-student variants of {assignment!r} in release/<student>/{assignment}/: "
                f"run `gradekit generate {assignment}` first"
            )
        out = Released()
        if not force:
            already = set(self._call("GET", wire.RELEASES.url()).get(assignment, []))
            taken = [s for s in students if (self.identities.account_of(s) or s) in already]
            if taken:
                raise ExchangeFailure(
                    f"{', '.join(taken[:5])} already ha{'s' if len(taken) == 1 else 've'} {assignment} in the hub "
                    "exchange, add --force to overwrite"
                )
        for who in students:
            folder = base / who / assignment
            files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
            account = self.identities.account_of(who) or who
            self._call(
                "PUT",
                wire.RELEASE_TO.url(assignment=assignment, user=account),
                body=pack_zip(files),
                query={"force": "1"} if force else None,
            )
            out.protection[who] = "hub"
        return out

    def released(self) -> list[str]:
        return sorted(self._call("GET", wire.RELEASES.url()))

    # -- hand-ins in ----------------------------------------------------------------------------
    def ready(self, wait: float = 0.0) -> str | None:
        import time

        deadline = time.monotonic() + wait
        while True:
            try:
                answer = self.client.json("GET", wire.PING.url())
                break
            except HubError as exc:
                if not exc.transient or time.monotonic() >= deadline:
                    return f"the hub exchange: {exc}"
            time.sleep(0.5)
        if not answer.get("instructor"):
            return (
                f"the hub exchange at {self.url} takes the course's token for {answer.get('caller')!r}, who does not "
                f"teach {self.course.course_id}: its token needs the scope {answer.get('instructor_scope')}"
            )
        return None

    def where(self, poll: float = 0.0) -> str:
        return f"taking hand-ins from the hub exchange at {self.url} as they are accepted"

    def events(self, poll: float = 0.0) -> Events:
        return _LongPoll(self)

    def learn(self, found: list[dict]) -> list[HandinMeta]:
        """What the service said of these hand-ins, kept by number."""
        metas = [HandinMeta.from_json(m) for m in found]
        for meta in metas:
            self.meta[meta.number] = meta
        return metas

    def look(self, names: list[str] | None, assignments: list[str]) -> list[Handin]:
        if names is None:
            try:
                self.learn(self.client.json("GET", wire.HANDINS.url())["handins"])
            except HubError:
                return []
            numbers = list(self.meta)
        else:
            numbers = [int(n) for n in names if n.isdigit()]
        out = [self._handin(m) for m in map(self.meta.get, numbers) if m is not None and m.assignment in assignments]
        return sorted(out, key=lambda h: int(h.ref.key))

    def _handin(self, meta: HandinMeta) -> Handin:
        student = self.identities.student_of(meta.user)
        arrived, claimed = _utc(meta.timestamp), _utc(meta.claimed)
        tolerance = float(getattr(self.course.settings, "timestamp_tolerance", 60.0) or 60.0)
        if claimed is not None and arrived is not None and abs((arrived - claimed).total_seconds()) <= tolerance:
            claimed = None  # the service's clock counts; a claim is kept only to report one that disagrees
        fetched = self.prefetched.pop(meta.number, None)
        files: Mapping[str, bytes] = (
            {} if meta.problem else fetched or _Files(functools.partial(self._files, meta.number))
        )
        handin = Handin(
            ref=number_ref(meta.number),
            assignment=meta.assignment,
            named=meta.named if meta.kind == "impersonation" else (student or meta.user),
            account=meta.user,
            student=student,
            arrived=arrived,
            claimed=claimed,
            files=files,
            problem=meta.problem,
            kind=meta.kind or "",
            digest=meta.sha256,
        )
        if handin.accepted and student is None:
            return handin.refused(f"the hub user {meta.user} is no student of {self.course.course_id}", "unknown")
        return handin

    def _files(self, number: int) -> dict[str, bytes]:
        return wire.unpack(self.client.request("GET", wire.HANDIN.url(part=number)))

    # -- feedback back --------------------------------------------------------------------------
    @staticmethod
    def _number(submission: Path) -> int | None:
        """The service's number of the hand-in collected in ``submission`` (its receipt.json's reference)."""
        from gradekit.exchange.ledger import ref_of

        return number_of(ref_of(submission))

    def give_feedback(self, student: str, assignment: str, submission: Path, pages: dict[str, str]) -> bool:
        number = self._number(submission)
        if number is None:
            return False
        body = {"pages": dict(pages)}
        self._call("PUT", wire.FEEDBACK.url(part=number), body=body, patience=FEEDBACK_PATIENCE)
        return True

    def feedback_given(self, assignment: str, submissions: Mapping[str, Path]) -> set[str]:
        numbers = {student: self._number(folder) for student, folder in submissions.items()}
        if not any(n is not None for n in numbers.values()):
            return set()
        given = {m.number for m in self.learn(self._call("GET", wire.HANDINS.url())["handins"]) if m.feedback}
        return {student for student, number in numbers.items() if number in given}

    # -- what a student may list ----------------------------------------------------------------
    def listing(self, student: str) -> list[Listed]:
        account = self.identities.account_of(student) or student
        found = self._call("GET", wire.LISTING.url(user=account))["assignments"]
        out = []
        for a in found:
            metas = [HandinMeta.from_json(h) for h in a["handins"]]
            out.append(
                Listed(
                    a["assignment"],
                    bool(a["released"]),
                    tuple(number_ref(m.number).place for m in metas),
                    tuple(number_ref(m.number).place for m in metas if m.feedback),
                )
            )
        return out

    def close(self) -> None:
        self._client = None
