"""Running one of gradekit's web services: inside a JupyterHub, or alone on 127.0.0.1 with a token.

Inside a hub (``$JUPYTERHUB_SERVICE_URL`` set: the hub started it from its entry in
``c.JupyterHub.services``) a service

- binds where the hub says, first of all, so that the hub finds it up at once (a hub gives a
  service 30 s, then exits); what takes time (grouping answers) comes after;
- takes over from the service of a dead hub: a port still held is tried again for
  ``lifetime.TAKEOVER`` seconds, and a service whose hub has died stops by itself;
- logs the address people open: the hub's public URL and the service's prefix;
- stops within a second of SIGTERM or SIGINT (the hub sends SIGINT first).

Alone (``gradekit grade`` on a laptop), it binds to 127.0.0.1 and asks for the token it prints
(:class:`TokenPage` and :class:`TokenAPI`: the token's cookie after the first visit), so that
another account of a shared machine cannot use it.

Both kinds of handler share :func:`security_headers`: no caching, no sniffing, no framing, and
a page that fetches nothing from anywhere.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from tornado import httpserver, web

from gradekit.errors import UsageError
from gradekit.web.lifetime import TAKEOVER, Hub

CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
    "img-src data:; frame-ancestors 'none'"
)


def security_headers(handler: web.RequestHandler) -> None:
    handler.set_header("Cache-Control", "no-store")
    handler.set_header("X-Content-Type-Options", "nosniff")
    handler.set_header("Content-Security-Policy", CSP)


@dataclass(frozen=True)
class Binding:
    host: str
    port: int
    prefix: str
    public: str  # what people open
    in_hub: bool


def binding(port: int = 0) -> Binding:
    """Where to listen: where the hub says ($JUPYTERHUB_SERVICE_URL, ..._PREFIX), else 127.0.0.1:port."""
    url = os.environ.get("JUPYTERHUB_SERVICE_URL")
    if not url:
        return Binding("127.0.0.1", port, "/", "", False)
    parsed = urlparse(url)
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX") or parsed.path or "/"
    prefix = prefix if prefix.endswith("/") else prefix + "/"
    public = os.environ.get("JUPYTERHUB_PUBLIC_URL", "")
    if not public:
        origin = os.environ.get("JUPYTERHUB_PUBLIC_HUB_URL", "").split("/hub/")[0].rstrip("/")
        public = f"{origin}{prefix}" if origin else ""
    return Binding(parsed.hostname or "127.0.0.1", parsed.port or 80, prefix, public, True)


def where(b: Binding, port: int) -> str:
    """The address a person opens, for the log."""
    if not b.in_hub:
        return f"http://{b.host}:{port}{b.prefix}"
    if b.public:
        return b.public
    return f"{b.prefix} on the hub (c.JupyterHub.public_url unset: this is the path after the hub's address)"


def listen(app: web.Application, b: Binding) -> tuple[httpserver.HTTPServer, int]:
    """Bind (trying again for a while when a dead hub's service still holds the port); the port bound."""
    from tornado.netutil import bind_sockets

    deadline = time.monotonic() + (TAKEOVER if b.in_hub else 0)
    while True:
        try:
            sockets = bind_sockets(b.port, b.host)
            break
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            if time.monotonic() >= deadline:
                raise UsageError(f"{b.host}:{b.port} is taken by another process") from None
            time.sleep(0.25)
    server = httpserver.HTTPServer(app, xheaders=b.in_hub)
    server.add_sockets(sockets)
    return server, sockets[0].getsockname()[1]


def run(
    make_app: Callable[[Binding], web.Application],
    port: int = 0,
    ready: Callable[[str], None] = print,
    warm: Callable[[], Any] | None = None,
) -> None:
    """Serve ``make_app(binding)`` until SIGTERM or SIGINT (or the hub's death); ``ready(address)`` once
    it listens; ``warm`` then runs in a thread (what takes time before the first page is quick)."""
    asyncio.run(_serve(make_app, port, ready, warm))


async def _serve(make_app, port, ready, warm) -> None:
    b = binding(port)
    app = make_app(b)
    server, bound = listen(app, b)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    Hub().watch(lambda: loop.call_soon_threadsafe(stop.set))
    ready(where(b, bound))
    if warm is not None:
        loop.run_in_executor(None, warm)
    await stop.wait()
    server.stop()
    await asyncio.wait_for(server.close_all_connections(), timeout=2)


# -- alone, with a token ----------------------------------------------------------------------


def token_settings(token: str | None) -> dict[str, Any]:
    return {"gradekit_token": token}


class _TokenBase(web.RequestHandler):
    """A request is let in with the printed token (``?token=``, then its cookie), or with no token set."""

    COOKIE = "gradekit_grade"

    def set_default_headers(self) -> None:
        security_headers(self)

    def _let_in(self) -> bool:
        token = self.settings.get("gradekit_token")
        if token is None:
            return True
        if secrets.compare_digest(self.get_cookie(self.COOKIE, ""), token):
            return True
        given = self.get_query_argument("token", "")
        if given and secrets.compare_digest(given, token) and self.request.method == "GET":
            self.set_cookie(self.COOKIE, token, httponly=True, samesite="Strict", path=self.settings["gradekit_prefix"])
            return True
        return False

    @property
    def caller_name(self) -> str:
        return ""


class TokenPage(_TokenBase):
    def prepare(self) -> None:
        if not self._let_in():
            raise web.HTTPError(403, "open the address with the token it printed")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None))[1]
        line = exc.log_message if isinstance(exc, web.HTTPError) and exc.log_message else self._reason
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"gradekit: {line}\n")


class TokenAPI(_TokenBase):
    def prepare(self) -> None:
        if not self._let_in():
            raise web.HTTPError(403, "forbidden")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None))[1]
        line = exc.log_message if isinstance(exc, web.HTTPError) and exc.log_message else self._reason
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"error": line}, ensure_ascii=False))


# -- a service that cannot start -------------------------------------------------------------


class _Broken(web.RequestHandler):
    def initialize(self, line: str) -> None:
        self.line = line

    def get(self, *args) -> None:
        self.set_status(503)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"gradekit: {self.line}\n")

    post = get


def hold_broken(line: str, say=print, seconds: float = 60.0) -> None:
    """Inside a hub, a service that cannot start (a course error) answers 503 with its one line for
    ``seconds``, then returns (its command exits 3 and the hub starts it again): a hub waits for a
    starting service to come up and exits when it does not, so a broken service would take the hub
    down with it."""
    b = binding()
    if not b.in_hub:
        return

    async def main() -> None:
        app = web.Application([(r"/.*", _Broken, {"line": line})])
        server, _ = listen(app, b)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        Hub().watch(lambda: loop.call_soon_threadsafe(stop.set))
        say(f"gradekit: {line} (answering 503 at {where(b, b.port)}; starting again in {seconds:g} s)")
        try:
            await asyncio.wait_for(stop.wait(), timeout=seconds)
        except TimeoutError:
            pass
        server.stop()

    asyncio.run(main())
