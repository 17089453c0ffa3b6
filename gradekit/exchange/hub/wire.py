"""The hub exchange's wire: its HTTP contract, the server's side and the client's side by side.

The service (gradekit.exchange.hub.server) is a JupyterHub service; every request carries a hub
token (``Authorization: token <token>``: a student's server's ``$JUPYTERHUB_API_TOKEN``, the
course's service token), and the service asks the hub whose it is. The routes are under the
service's URL, ``api/<course>/``: :data:`ROUTES`, each with its :class:`Use` (a method, who may
call it, what it answers). The server registers them, the clients call them; nothing else spells
a path, a header or a status. docs/reference/hub-exchange.md is generated from :data:`ROUTES`,
:class:`Status` (:data:`STATUS_MEANS`) and :class:`Limits`.

An answer is JSON (or a zip); a refusal is ``{"error": "<one line>"}`` with its :class:`Status`,
which the clients raise as :class:`HubError` with that line and status. A hand-in travels as a
:class:`HandinMeta`; what one may hold is :class:`Limits`. Only the standard library is used:
this is what a student's server imports.
"""

from __future__ import annotations

import enum
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

SERVICE = "gradekit-exchange"  # the service's name in the hub (its URL: /services/gradekit-exchange/)
TOKEN_ENV = "JUPYTERHUB_API_TOKEN"
KEY_HEADER = "X-Gradekit-Key"
KEY = re.compile(r"^[A-Za-z0-9_-]{8,128}$")  # a hand-in's KEY_HEADER: the client's, random
RETRIES = 10  # a hand-in whose answer was lost is sent again (a second apart), with the same key
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"  # a hand-in's time on the wire: nbgrader's timestamp format
# in the answer to the course's long poll (GET handins?wait=S): the service is stopping, and the poller looks
# again later, not at once (its port is closed by then: the hub's proxy answered the next poll 503)
STOPPING = "stopping"


class Status(enum.IntEnum):
    """The statuses the service answers with (what each means: :data:`STATUS_MEANS`)."""

    OK = 200
    CREATED = 201
    BAD_REQUEST = 400
    UNAUTHORIZED = 401
    FORBIDDEN = 403
    NOT_FOUND = 404
    CONFLICT = 409
    TOO_LARGE = 413
    TOO_MANY = 429


STATUS_MEANS: dict[Status, str] = {
    Status.OK: "the answer: JSON, or a zip",
    Status.CREATED: "a new hand-in (its HandinMeta); a hand-in sent again with its key is answered 200",
    Status.BAD_REQUEST: "a request the route cannot take: no key, not a zip, a bad name",
    Status.UNAUTHORIZED: "no token the hub knows",
    Status.FORBIDDEN: "the caller may not: another's work, an instructor's route, a hand-in replaced or deleted",
    Status.NOT_FOUND: "no such course, release or hand-in",
    Status.CONFLICT: "a release there already (PUT it again with ?force=1)",
    Status.TOO_LARGE: "a hand-in over its limits, or a body over the cut-off (Limits.drained)",
    Status.TOO_MANY: "over a rate, or too many of one student's hand-ins arriving at once (Retry-After: seconds)",
}


@dataclass(frozen=True)
class Use:
    """One thing a route does: its method, its path as a person writes it (``<part>``), who may call it
    ("caller": anyone whose token may use the service, for themselves only; "instructors": the
    course's instructors and its services; "nobody": always refused), and what it answers."""

    method: str
    path: str
    who: str
    does: str


@dataclass(frozen=True)
class Route:
    """One route of the API: its path under ``api/<course>/`` (``{part}``: one segment of the path) and
    what it does (:class:`Use`, one a method and a form of the path)."""

    path: str
    uses: tuple[Use, ...]

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(use.method for use in self.uses))

    def url(self, **parts: str | int) -> str:
        """The path a client calls, each part quoted."""
        return self.path.format(**{k: urllib.parse.quote(str(v), safe="") for k, v in parts.items()})

    def pattern(self, api: str) -> str:
        """The server's pattern, under ``api`` (``<prefix>api/([^/]+)``: the course is its first group)."""
        return api + "/" + re.sub(r"\{\w+\}", "([^/]+)", self.path)


PING = Route("ping", (Use("GET", "ping", "caller", "who the caller is, whether they teach, the limits"),))
ASSIGNMENTS = Route(
    "assignments",
    (Use("GET", "assignments", "caller", "what the caller may list: their releases, hand-ins and feedback"),),
)
RELEASE = Route(
    "release/{assignment}", (Use("GET", "release/<a>", "caller", "the caller's own release of <a> (a zip)"),)
)
RELEASE_TO = Route(
    "release/{assignment}/{user}",
    (
        Use("GET", "release/<a>/<user>", "instructors", "<user>'s release of <a> (a zip)"),
        Use("PUT", "release/<a>/<user>", "instructors", "<user>'s release of <a> (a zip body; ?force=1 replaces it)"),
    ),
)
RELEASES = Route("releases", (Use("GET", "releases", "instructors", "{assignment: [users it was released to]}"),))
HANDINS = Route(
    "handins",
    (
        Use(
            "GET",
            "handins?after=N&wait=S",
            "instructors",
            "the hand-ins numbered after N (each with the notebooks whose feedback was given), waiting up to "
            f'S s (at most 60) for one; {{"{STOPPING}": true}} beside none when the service stops meanwhile',
        ),
    ),
)
HANDIN = Route(
    "handins/{part}",
    (
        Use(
            "POST",
            "handins/<a>",
            "caller",
            f"a hand-in of <a> as the caller (a zip body); {KEY_HEADER} (random, the client's) makes a retry "
            "after a lost answer the same hand-in",
        ),
        Use(
            "GET",
            "handins/<number>",
            "instructors",
            "one hand-in's files (a zip the service wrote of what it accepted)",
        ),
        *(
            Use(m, "handins/<number>", "nobody", "refused (403): a hand-in is never replaced or deleted")
            for m in ("PUT", "DELETE", "PATCH")
        ),
    ),
)
FEEDBACK = Route(
    "feedback/{part}",
    (
        Use("GET", "feedback/<a>", "caller", "the feedback pages of the caller's hand-ins of <a>"),
        Use("PUT", "feedback/<number>", "instructors", 'a graded hand-in\'s pages ({"pages": {notebook: html}})'),
    ),
)
LISTING = Route("listing/{user}", (Use("GET", "listing/<user>", "instructors", "what <user> may list"),))
ROUTES = (PING, ASSIGNMENTS, RELEASES, RELEASE, RELEASE_TO, HANDINS, HANDIN, FEEDBACK, LISTING)


@dataclass(frozen=True)
class Limits:
    """What a hand-in may hold and how often a student may call (``gradekit hub-exchange``'s options),
    as the service answers them in ``ping`` and the students' submit checks them first."""

    max_mb: float = field(default=20.0, metadata={"help": "MiB of files a hand-in may hold, unpacked"})
    max_files: int = field(default=50, metadata={"help": "files a hand-in may hold"})
    per_minute: int = field(default=10, metadata={"help": "hand-ins a student may try a minute, refused ones included"})
    at_once: int = field(default=2, metadata={"help": "hand-ins of one student arriving at the same time"})
    reads_per_minute: int = field(
        default=120,
        metadata={"help": "times a student may list, fetch or read feedback a minute; instructors' are not counted"},
    )

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
            "reads_per_minute": self.reads_per_minute,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Limits:
        return cls(**{k: data[k] for k in cls().to_dict() if k in data})


@dataclass(frozen=True)
class HandinMeta:
    """One hand-in as the wire carries it: the service's answer to it, its listings, its long poll."""

    number: int  # the service's number: the order hand-ins were accepted in
    assignment: str
    user: str  # the hub user whose token handed it in
    named: str  # whom it claimed to be for (a refused one: a classmate's name)
    timestamp: str  # when the service received it (STAMP)
    claimed: str | None = None  # the time its timestamp.txt claims (STAMP)
    sha256: str | None = None  # of its files (gradekit.exchange.handin.files_sha256)
    files: int | None = None
    problem: str | None = None  # why it was refused
    kind: str | None = None  # the refusal's kind ("impersonation")
    feedback: tuple[str, ...] | None = None  # the notebooks whose pages were given back (listings)
    checksums: tuple[tuple[str, str], ...] = ()  # (notebook, md5 of its page) (the student's listing)

    @property
    def name(self) -> str:
        """nbgrader's kind of name for it, for a person: <named>+<assignment>+<when>+<number>."""
        return f"{self.named}+{self.assignment}+{self.timestamp}+{self.number}"

    def to_json(self) -> dict:
        out = {
            "id": self.number,
            "name": self.name,
            "assignment": self.assignment,
            "user": self.user,
            "named": self.named,
            "timestamp": self.timestamp,
            "claimed": self.claimed,
            "sha256": self.sha256,
            "files": self.files,
            "problem": self.problem,
            "kind": self.kind,
        }
        if self.feedback is not None:
            out["feedback"] = list(self.feedback)
            out["checksums"] = dict(self.checksums)
        return out

    @classmethod
    def from_json(cls, data: dict) -> HandinMeta:
        feedback = data.get("feedback")
        return cls(
            number=int(data["id"]),
            assignment=str(data["assignment"]),
            user=str(data["user"]),
            named=str(data.get("named") or data["user"]),
            timestamp=str(data["timestamp"]),
            claimed=data.get("claimed"),
            sha256=data.get("sha256"),
            files=data.get("files"),
            problem=data.get("problem"),
            kind=data.get("kind"),
            feedback=None if feedback is None else tuple(feedback),
            checksums=tuple(sorted((data.get("checksums") or {}).items())),
        )


WAITED = (502, 503, 504)  # the hub's proxy (or the exchange, its hub not answering): not up yet, or restarting


class HubError(Exception):
    """The hub exchange refused a request, or could not be reached: ``str()`` is one line.

    ``answered``: the exchange itself answered (a JSON ``error``). A refusal that is not its own --
    the proxy's 404 before it has the exchange's route, its 502 or 503 while the exchange starts
    again, a refused connection -- is ``transient``: the same request is worth sending again."""

    def __init__(self, line: str, status: int = 0, answered: bool = False, retry_after: float | None = None):
        super().__init__(line)
        self.status = status
        self.answered = answered
        self.retry_after = retry_after  # seconds, a refusal over a rate's (429, its Retry-After)

    @property
    def transient(self) -> bool:
        return not self.status or not self.answered or self.status in WAITED

    @property
    def refused(self) -> bool:
        """The exchange itself answered, and said no (sending the same again gets the same answer)."""
        return not self.transient


class HubClient:
    """Requests to the hub exchange at ``url`` with a hub ``token`` (default: ``$JUPYTERHUB_API_TOKEN``)."""

    def __init__(self, url: str, course_id: str, token: str | None = None, timeout: float = 60.0):
        if not url:
            raise HubError("no hub exchange URL: set c.GradekitHubExchange.url (gradekit student-config writes it)")
        self.url = url.rstrip("/") + "/"
        self.course_id = course_id
        self.token = token if token is not None else os.environ.get(TOKEN_ENV, "")
        if not self.token:
            raise HubError(f"no hub token: ${TOKEN_ENV} is not set (run this inside your JupyterHub server)")
        self.timeout = timeout

    def _url(self, path: str, query: dict | None = None) -> str:
        url = self.url + "api/" + urllib.parse.quote(self.course_id, safe="") + "/" + path
        return url + ("?" + urllib.parse.urlencode(query) if query else "")

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        query: dict | None = None,
        headers: dict | None = None,
        timeout: float | None = None,
    ) -> bytes:
        """The answer's body to ``method`` on ``path`` (a Route's ``url()``); a refusal or a failure to
        connect is a HubError with its line."""
        request = urllib.request.Request(
            self._url(path, query),
            data=body,
            method=method,
            headers={"Authorization": f"token {self.token}", **(headers or {})},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as answer:
                return answer.read()
        except urllib.error.HTTPError as exc:
            line, answered = _error_line(exc)
            after = (exc.headers.get("Retry-After") or "").strip() if exc.code == Status.TOO_MANY else ""
            raise HubError(line, exc.code, answered, float(after) if after.isdigit() else None) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise HubError(f"the hub exchange at {self.url} cannot be reached ({reason})") from None

    def json(self, method: str, path: str, body=None, query: dict | None = None, **kw):
        data = json.dumps(body).encode() if body is not None and not isinstance(body, bytes) else body
        headers = {"Content-Type": "application/json"} if data is not None and not isinstance(body, bytes) else {}
        return json.loads(self.request(method, path, data, query, {**headers, **kw.pop("headers", {})}, **kw) or b"{}")


def unpack(data: bytes) -> dict[str, bytes]:
    """A hand-in's files from the zip the service wrote of them (GET handins/<number>): it read the
    student's zip within the limits as it arrived -- the one reading of it -- so here they are only
    taken out."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist() if not info.is_dir()}


def _error_line(exc: urllib.error.HTTPError) -> tuple[str, bool]:
    """The refusal's line, and whether the exchange said it (its JSON ``error``), not the hub or its proxy."""
    try:
        line = json.loads(exc.read() or b"{}").get("error")
    except (ValueError, AttributeError, OSError):
        line = None
    if line:
        return str(line), True
    return f"{exc.code} {exc.reason} from the hub's proxy (no route to the exchange yet, or it is starting)", False
