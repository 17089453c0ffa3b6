"""The hub exchange's wire: its HTTP API, as a student's server and the course call it.

The service (gradekit.exchange.hub.server) is a JupyterHub service; every request carries a hub token
(``Authorization: token <token>``: a student's server's ``$JUPYTERHUB_API_TOKEN``, the course's
service token), and the service asks the hub whose it is. Paths are under the service's URL::

    anyone whose token may use the service, for themselves only:
      GET  api/<course>/assignments              what the caller may list (their releases, hand-ins, feedback)
      GET  api/<course>/release/<a>              the caller's own release of <a> (a zip)
      POST api/<course>/handins/<a>              a hand-in of <a> as the caller (a zip body); the header
                                                 X-Gradekit-Key (random, the client's) makes a retry after a
                                                 lost answer the same hand-in, never a second one
      GET  api/<course>/feedback/<a>             the feedback pages of the caller's hand-ins of <a>
    the course's instructors (and its services) only:
      PUT  api/<course>/release/<a>/<user>       <user>'s release of <a> (a zip; ?force=1 to replace it)
      GET  api/<course>/releases                 {assignment: [users]}
      GET  api/<course>/handins?after=N&wait=S   the hand-ins after number N, waiting up to S s for one
      GET  api/<course>/handins/<id>             one hand-in's files (a zip)
      PUT  api/<course>/feedback/<id>            a graded hand-in's pages ({"pages": {notebook: html}})
      GET  api/<course>/listing/<user>           what <user> may list

An answer is JSON (or a zip); a refusal is ``{"error": "<one line>"}`` with its HTTP status, which
the clients raise as :class:`HubError` with that line. Only the standard library is used: this is
what a student's server imports.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request

SERVICE = "gradekit-exchange"  # the service's name in the hub (its URL: /services/gradekit-exchange/)
TOKEN_ENV = "JUPYTERHUB_API_TOKEN"
KEY_HEADER = "X-Gradekit-Key"
RETRIES = 10  # a hand-in whose answer was lost is sent again (a second apart), with the same key


WAITED = (502, 503, 504)  # the hub's proxy (or the exchange, its hub not answering): not up yet, or restarting


class HubError(Exception):
    """The hub exchange refused a request, or could not be reached: ``str()`` is one line.

    ``answered``: the exchange itself answered (a JSON ``error``). A refusal that is not its own --
    the proxy's 404 before it has the exchange's route, its 502 or 503 while the exchange starts
    again, a refused connection -- is ``transient``: the same request is worth sending again."""

    def __init__(self, line: str, status: int = 0, answered: bool = False):
        super().__init__(line)
        self.status = status
        self.answered = answered

    @property
    def transient(self) -> bool:
        return not self.status or not self.answered or self.status in WAITED


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
        parts = [urllib.parse.quote(str(p), safe="") for p in path.split("/") if p]
        url = self.url + "api/" + urllib.parse.quote(self.course_id, safe="") + "/" + "/".join(parts)
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
        """The answer's body; a refusal or a failure to connect is a HubError with its line."""
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
            raise HubError(line, exc.code, answered) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise HubError(f"the hub exchange at {self.url} cannot be reached ({reason})") from None

    def json(self, method: str, path: str, body=None, query: dict | None = None, **kw):
        data = json.dumps(body).encode() if body is not None and not isinstance(body, bytes) else body
        headers = {"Content-Type": "application/json"} if data is not None and not isinstance(body, bytes) else {}
        return json.loads(self.request(method, path, data, query, {**headers, **kw.pop("headers", {})}, **kw) or b"{}")


def _error_line(exc: urllib.error.HTTPError) -> tuple[str, bool]:
    """The refusal's line, and whether the exchange said it (its JSON ``error``), not the hub or its proxy."""
    try:
        line = json.loads(exc.read() or b"{}").get("error")
    except (ValueError, AttributeError, OSError):
        line = None
    if line:
        return str(line), True
    return f"{exc.code} {exc.reason} from the hub's proxy (no route to the exchange yet, or it is starting)", False
