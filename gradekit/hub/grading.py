"""``gradekit grade``'s server: the grading page (gradekit.manual.server.GradingApp) on tornado.

Inside a JupyterHub (the hub started it from ``gradekit hub-config``'s entry) it serves under
the service's prefix, behind the hub's login: only the course's instructors get in
(gradekit.web.auth), and each change is logged under the hub user who made it. Alone it
listens on 127.0.0.1 and asks for the token it prints. The routes are GradingApp's::

    <prefix>                             the page
    <prefix>api/state, api/q/<cell>, api/q/<cell>/g/<group>, api/context/<student>     GET
    <prefix>api/q/<cell>/<change>, api/undo                                            POST (JSON)

GradingApp's calls read and write SQLite and group answers: they run in a thread pool, so that
one instructor's slow question never holds up another's page.
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tornado import web

from gradekit.errors import GradekitError
from gradekit.manual.server import GradingApp

_POOL = ThreadPoolExecutor(4, thread_name_prefix="gradekit-grade")


class _Page:
    """GET <prefix>: the page."""

    def initialize(self, app: GradingApp) -> None:
        self.app = app

    def get(self) -> None:
        xsrf = self.xsrf_token.decode() if self.settings.get("hub_auth") else ""  # type: ignore[attr-defined]
        self.set_header("Content-Type", "text/html; charset=utf-8")  # type: ignore[attr-defined]
        self.write(self.app.page(xsrf))  # type: ignore[attr-defined]


class _API:
    """The JSON routes."""

    settings: dict[str, Any]

    def initialize(self, app: GradingApp) -> None:
        self.app = app

    def _who(self) -> str:
        caller = getattr(self, "caller", None)
        return caller.name if caller is not None else ""

    async def _answer(self, call, *args) -> None:
        try:
            data = await asyncio.get_running_loop().run_in_executor(_POOL, call, *args)
        except (GradekitError, ValueError, KeyError, TypeError) as exc:
            raise web.HTTPError(400, str(exc)) from None
        self.set_header("Content-Type", "application/json; charset=utf-8")  # type: ignore[attr-defined]
        self.write(json.dumps(data, ensure_ascii=False))  # type: ignore[attr-defined]

    async def get(self, what: str, cell: str = "", rest: str = "") -> None:
        app = self.app
        if what == "state":
            return await self._answer(app.state)
        if what == "context":
            return await self._answer(app.context, cell)
        if what == "q" and not rest:
            return await self._answer(app.question, cell)
        if what == "q" and rest.startswith("g/") and rest[2:].isdigit():
            offset = int(self.get_query_argument("offset", "0"))  # type: ignore[attr-defined]
            limit = min(int(self.get_query_argument("limit", "50")), 5000)  # type: ignore[attr-defined]
            return await self._answer(app.group, cell, int(rest[2:]), offset, limit)
        raise web.HTTPError(404, "not found")

    async def post(self, what: str, cell: str = "", rest: str = "") -> None:
        app = self.app
        request = self.request  # type: ignore[attr-defined]
        session = request.headers.get("X-Gradekit-Session", "")
        if not session or "application/json" not in request.headers.get("Content-Type", ""):
            raise web.HTTPError(403, "forbidden")
        try:
            body = json.loads(request.body[: 1 << 20] or b"{}")
        except ValueError as exc:
            raise web.HTTPError(400, f"not JSON: {exc}") from None
        if not isinstance(body, dict):
            raise web.HTTPError(400, "a JSON object is expected")
        grader = self._who() or app.grader
        if what == "undo":
            return await self._answer(app.desk.undo, session, grader)
        if what == "q" and rest:
            return await self._answer(app.change, cell, rest, body, session, grader)
        raise web.HTTPError(404, "not found")


def routes(prefix: str, page: type, api: type) -> list:
    """One assignment's routes under ``prefix``; its GradingApp is the handler's ``app`` argument."""
    return [
        (prefix, type("GradingPage", (_Page, page), {})),
        (prefix + "index.html", type("GradingPage", (_Page, page), {})),
        (prefix + r"api/(state|undo)", type("GradingAPI", (_API, api), {})),
        (prefix + r"api/(context)/([^/]+)", type("GradingAPI", (_API, api), {})),
        (prefix + r"api/(q)/([^/]+)(?:/(.+))?", type("GradingAPI", (_API, api), {})),
    ]


class _Index:
    """GET <prefix> when the service grades several assignments: a link to each."""

    def get(self) -> None:
        import html

        links = "".join(
            f'<li><a href="{html.escape(a)}/">{html.escape(a)}</a></li>'
            for a in self.settings["grading_apps"]  # type: ignore[attr-defined]
        )
        self.set_header("Content-Type", "text/html; charset=utf-8")  # type: ignore[attr-defined]
        self.write(f"<!doctype html><meta charset=utf-8><title>gradekit grade</title><ul>{links}</ul>")  # type: ignore[attr-defined]


def serve(
    course, assignments: list[str], language: str, grader: str = "", port: int = 0, token: bool = True, say=print
) -> None:
    """``gradekit grade``: serve the grading pages until SIGTERM or SIGINT (see the module's docstring)."""
    import secrets

    from gradekit.web import serving as hubweb

    started = time.perf_counter()
    held: dict[str, Any] = {"apps": {}}

    def make_app(b: hubweb.Binding) -> web.Application:
        if b.in_hub:
            from gradekit.web.auth import InstructorAPI, InstructorPage, oauth_callback, service_settings

            page, api = InstructorPage, InstructorAPI
            handlers: list = [oauth_callback(b.prefix)]
            settings = service_settings(course.course_id)
        else:
            held["token"] = secrets.token_urlsafe(24) if token else None
            page, api = hubweb.TokenPage, hubweb.TokenAPI  # type: ignore[assignment]
            handlers = []
            settings = hubweb.token_settings(held["token"])
        for assignment in assignments:
            prefix = b.prefix if len(assignments) == 1 else f"{b.prefix}{assignment}/"
            app = held["apps"][assignment] = GradingApp(course, assignment, language, grader, prefix)
            handlers += [(*route, {"app": app}) for route in routes(prefix, page, api)]
        if len(assignments) > 1:
            handlers.append((b.prefix, type("GradingIndex", (_Index, page), {})))
        return web.Application(handlers, grading_apps=held["apps"], gradekit_prefix=b.prefix, **settings)

    def ready(address: str) -> None:
        query = f"?token={held['token']}" if held.get("token") else ""
        say(f"grading {', '.join(assignments)} of {course.course_id}: open {address}{query}  (Ctrl+C stops)")

    def warm() -> None:
        for assignment, app in held["apps"].items():
            grouped = app.prepare()
            say(
                f"grading {assignment}: {', '.join(grouped) or 'no manually graded question'} grouped in "
                f"{time.perf_counter() - started:.1f} s"
            )

    try:
        hubweb.run(make_app, port, ready, warm)
    finally:
        for app in held["apps"].values():
            app.desk.writer.close()
