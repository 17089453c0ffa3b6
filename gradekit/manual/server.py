"""``gradekit grade``: the grading page, served on 127.0.0.1 (or as a JupyterHub service).

One page, no files fetched from anywhere (its script and style are inline): it works
offline. Its labels are in the instructor's language (``--language``, or
``c.Gradekit.language``), from gradekit's catalog. The page talks to this server in JSON::

    GET  api/state                       the questions, the labels
    GET  api/q/<cell>                    the rubric and the groups (largest first), each with its typical answer
    GET  api/q/<cell>/g/<group>          a group's answers, their items and scores
    GET  api/context/<student>           their numbers and their code's named mistakes
    POST api/q/<cell>/<change>           apply, grade, item, delete, mode, move, merge (gradekit.manual.actions)
    POST api/undo                        the session's last change taken back

The server listens on loopback only and asks for the token it prints (kept in a cookie
after the first visit): another user of a shared machine cannot grade through it. Run as
a JupyterHub service, it binds to ``$JUPYTERHUB_SERVICE_URL`` and serves under
``$JUPYTERHUB_SERVICE_PREFIX``, next to formgrader. Each page (browser tab) is a session
of its own: undo takes back that page's changes only.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from gradekit.course import Course
from gradekit.errors import GradekitError, UsageError
from gradekit.i18n import _
from gradekit.manual.actions import Desk
from gradekit.manual.store import score

# every label of the page, in gradekit's catalog (gradekit/locale/<lang>.po)
LABELS = {
    "title": _("Grading {assignment}"),
    "question": _("Question"),
    "groups": _("Groups"),
    "answers": _("answers"),
    "graded": _("graded"),
    "of": _("{graded} of {total} graded"),
    "group": _("Group {n}"),
    "size": _("{n} answers"),
    "size_one": _("1 answer"),
    "typical": _("Typical answer"),
    "empty": _("empty or untouched"),
    "rubric": _("Rubric"),
    "mode": _("Items"),
    "subtract": _("subtract from full marks"),
    "add": _("add up from zero"),
    "adjust": _("adjust the autograder's score"),
    "points": _("points"),
    "sentence": _("feedback sentence"),
    "translation": _("translation ({language})"),
    "new_item": _("New item"),
    "save": _("Save"),
    "cancel": _("Cancel"),
    "edit": _("Edit"),
    "delete": _("Delete"),
    "apply_group": _("Apply to the whole group"),
    "apply_selected": _("Apply to the selected answers"),
    "grade_as_is": _("Graded as it is (Enter)"),
    "undo": _("Undo (u)"),
    "split": _("Split the selected into a new group"),
    "move_to": _("Move the selected to group…"),
    "merge_with": _("Merge this group with…"),
    "context": _("Context"),
    "student": _("Student"),
    "score": _("Score"),
    "not_graded": _("not graded yet"),
    "numbers": _("Their numbers"),
    "mistakes": _("Mistakes named in their code"),
    "no_mistakes": _("No mistake named."),
    "close": _("Close"),
    "keys": _("Keys: 1–9 give an item, Enter grades as is, j/k next and previous group, u undo."),
    "show_more": _("Show more"),
    "undone": _("Undone: {what}"),
    "nothing_to_undo": _("Nothing to undo."),
    "changed": _("{n} answers changed"),
    "changed_one": _("1 answer changed"),
    "right": _("right"),
    "unexplained": _("wrong, no known mistake"),
    "unanswered": _("not answered"),
    "mistake": _("matches a known mistake"),
    "auto": _("autograder"),
    "language": _("language"),
    "select_all": _("select all"),
}


def labels(language: str) -> dict[str, str]:
    from gradekit.i18n.catalogs import translator
    from gradekit.i18n.text import render

    translate = translator(None, None, language)
    return {key: render(text, translate) for key, text in LABELS.items()}


class GradingApp:
    """What the server does for each request, apart from HTTP (the tests call it directly too)."""

    def __init__(
        self,
        course: Course,
        assignment: str,
        language: str = "en",
        grader: str = "",
        token: str | None = None,
        prefix: str = "/",
    ):
        self.course, self.assignment, self.language = course, assignment, language
        self.grader = grader or os.environ.get("USER", "") or "grader"
        self.token = token
        self.prefix = prefix if prefix.endswith("/") else prefix + "/"
        self.desk = Desk(course, assignment)
        self.labels = labels(language)
        self._contexts: dict[str, dict] = {}
        self._lock = threading.Lock()

    def prepare(self) -> list[str]:
        """Group every manually graded question now (a few seconds for thousands), so the page opens at once."""
        done = []
        for q in self.desk.questions():
            if q.kind != "numbers":
                self.desk.open(q.cell)
                done.append(q.cell)
        return done

    # ------------------------------------------------------------------ reads

    def state(self) -> dict:
        out = []
        with self.desk.store.reading() as db:
            held = dict(db.execute("SELECT cell, COUNT(*) FROM answer GROUP BY cell").fetchall())
            graded = dict(db.execute("SELECT cell, COUNT(*) FROM answer WHERE graded = 1 GROUP BY cell").fetchall())
        for q in self.desk.questions():
            out.append({**q.to_dict(), "total": held.get(q.cell), "graded": graded.get(q.cell, 0)})
        return {
            "assignment": self.assignment,
            "language": self.language,
            "grader": self.grader,
            "labels": self.labels,
            "questions": out,
        }

    def question(self, cell: str) -> dict:
        q = self.desk.question(cell)
        self.desk.open(cell)
        found = self.desk.answers(cell)
        store = self.desk.store
        with store.reading() as db:
            row = store.question_row(db, cell)
            items = store.items(db, cell)
            groups = store.groups(db, cell)
            info = store.group_info(db, cell)
            applied = store.applied(db, cell)
            graded = store.graded(db, cell)
        shown = []
        for gid, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            if not members:
                continue
            counts: dict[int, int] = {}
            for s in members:
                for i in applied.get(s, ()):
                    counts[i] = counts.get(i, 0) + 1
            typical = found.get(members[0])
            label, kind = info.get(gid, ("", ""))
            shown.append(
                {
                    "id": gid,
                    "size": len(members),
                    "graded": sum(1 for s in members if s in graded),
                    "label": label,
                    "kind": kind,
                    "typical": {"student": members[0], "text": _clip(typical)},
                    "items": counts,
                }
            )
        return {
            "question": {**q.to_dict(), "mode": row["mode"] if row else ""},
            "items": [i.to_dict() for i in items],
            "groups": shown,
            "total": sum(len(m) for m in groups.values()),
            "graded": len(graded),
        }

    def group(self, cell: str, gid: int, offset: int = 0, limit: int = 50) -> dict:
        found = self.desk.answers(cell)
        store = self.desk.store
        with store.reading() as db:
            row = store.question_row(db, cell)
            members = store.groups(db, cell).get(gid, [])
            items = {i.id: i for i in store.items(db, cell)}
            applied = store.applied(db, cell, members)
            graded = store.graded(db, cell)
        assert row is not None
        out = []
        for s in members[offset : offset + limit]:
            a = found.get(s)
            got = sorted(i for i in applied.get(s, ()) if i in items)
            auto = a.auto if a is not None else None
            value = None
            if s in graded:
                value = (
                    auto
                    if row["mode"] == "adjust" and not got
                    else score(row["mode"], float(row["points"]), [items[i].points for i in got], auto)
                )
            out.append(
                {
                    "student": s,
                    "text": _clip(a, 4000),
                    "language": a.language if a else "",
                    "items": got,
                    "graded": s in graded,
                    "score": value,
                    "auto": auto,
                    "verdict": list(a.verdict) if a else ["", ""],
                }
            )
        return {"group": gid, "size": len(members), "offset": offset, "members": out}

    def context(self, student: str) -> dict:
        from gradekit.intake.untrusted import require_id
        from gradekit.manual.answers import context

        require_id("student", student)
        with self._lock:
            if student not in self._contexts:
                self._contexts[student] = context(self.course, self.assignment, student)
            return self._contexts[student]

    # ------------------------------------------------------------------ changes

    def change(self, cell: str, what: str, body: dict, session: str) -> dict:
        d, g = self.desk, self.grader
        students = [str(s) for s in body.get("students") or []] or None
        group = int(body["group"]) if body.get("group") is not None else None
        if what == "apply":
            return d.apply(cell, int(body["item"]), g, session, students, group, body.get("on"))
        if what == "grade":
            return d.grade(cell, g, session, students, group)
        if what == "item":
            return d.save_item(
                cell,
                g,
                session,
                body.get("points", 0),
                body.get("text", ""),
                body.get("texts"),
                int(body["id"]) if body.get("id") is not None else None,
            )
        if what == "delete":
            return d.delete_item(cell, int(body["id"]), g, session)
        if what == "mode":
            return d.set_mode(cell, str(body.get("mode")), g, session)
        if what == "move":
            to = body.get("to")
            return d.move(cell, students or [], int(to) if to is not None else None, g, session)
        if what == "merge":
            return d.merge(cell, int(body["into"]), int(body["other"]), g, session)
        raise UsageError(f"no such change: {what}")

    def page(self) -> str:
        from gradekit.pages import look

        boot = {"prefix": self.prefix, "assignment": self.assignment, "labels": self.labels, "language": self.language}
        return look.render(
            "grade.html",
            self.language,
            None,
            title=self.labels["title"].format(assignment=self.assignment),
            boot=json.dumps(boot, ensure_ascii=False).replace("</", "<\\/"),
        )


def _clip(answer, limit: int = 600) -> str:
    text = answer.text if answer is not None else ""
    return text if len(text) <= limit else text[:limit] + "…"


_ROUTE = re.compile(r"^api/(?:q/(?P<cell>[^/]+)(?:/(?P<rest>.+))?|(?P<top>state|undo)|context/(?P<student>[^/]+))$")


class _Handler(BaseHTTPRequestHandler):
    app: GradingApp
    server_version = "gradekit-grade"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if os.environ.get("GRADEKIT_GRADE_LOG"):
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, kind: str, extra: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            "connect-src 'self'; img-src data:; frame-ancestors 'none'",
        )
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode(), "application/json; charset=utf-8")

    def _authorised(self, query: dict) -> tuple[bool, dict]:
        token = self.app.token
        if token is None:
            return True, {}
        cookies = dict(
            part.strip().split("=", 1) for part in (self.headers.get("Cookie") or "").split(";") if "=" in part
        )
        if secrets.compare_digest(cookies.get("gradekit_grade", ""), token):
            return True, {}
        given = (query.get("token") or [""])[0]
        if given and secrets.compare_digest(given, token):
            return True, {"Set-Cookie": f"gradekit_grade={token}; HttpOnly; SameSite=Strict; Path={self.app.prefix}"}
        return False, {}

    def _path(self) -> tuple[str | None, dict]:
        url = urlparse(self.path)
        prefix = self.app.prefix
        if not url.path.startswith(prefix):
            return None, {}
        return unquote(url.path[len(prefix) :]), parse_qs(url.query)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path, query = self._path()
        if path is None:
            return self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
        ok, cookie = self._authorised(query)
        if not ok:
            return self._send(
                HTTPStatus.FORBIDDEN,
                b"gradekit grade: open the address with the token it printed",
                "text/plain; charset=utf-8",
            )
        if path in ("", "index.html"):
            return self._send(HTTPStatus.OK, self.app.page().encode(), "text/html; charset=utf-8", cookie)
        match = _ROUTE.match(path)
        try:
            if match and match["top"] == "state":
                return self._json(HTTPStatus.OK, self.app.state())
            if match and match["student"]:
                return self._json(HTTPStatus.OK, self.app.context(match["student"]))
            if match and match["cell"] and not match["rest"]:
                return self._json(HTTPStatus.OK, self.app.question(match["cell"]))
            if match and match["cell"] and match["rest"].startswith("g/"):
                gid = int(match["rest"][2:])
                offset = int((query.get("offset") or ["0"])[0])
                limit = min(int((query.get("limit") or ["50"])[0]), 5000)
                return self._json(HTTPStatus.OK, self.app.group(match["cell"], gid, offset, limit))
        except (GradekitError, ValueError) as exc:
            return self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
        return self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        path, query = self._path()
        if path is None:
            return self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
        ok, _cookie = self._authorised({})
        session = self.headers.get("X-Gradekit-Session", "")
        if not ok or not session or "application/json" not in (self.headers.get("Content-Type") or ""):
            return self._json(HTTPStatus.FORBIDDEN, {"error": "forbidden"})
        try:
            length = min(int(self.headers.get("Content-Length") or 0), 1 << 20)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise ValueError("a JSON object is expected")
            match = _ROUTE.match(path)
            if match and match["top"] == "undo":
                return self._json(HTTPStatus.OK, self.app.desk.undo(session, self.app.grader))
            if match and match["cell"] and match["rest"]:
                return self._json(HTTPStatus.OK, self.app.change(match["cell"], match["rest"], body, session))
        except (GradekitError, ValueError, KeyError, TypeError) as exc:
            return self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
        return self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})


def make_server(app: GradingApp, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    handler = type("Handler", (_Handler,), {"app": app})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def hub_binding() -> tuple[str, int, str] | None:
    """(host, port, prefix) when run as a JupyterHub service ($JUPYTERHUB_SERVICE_URL, ..._PREFIX)."""
    url = os.environ.get("JUPYTERHUB_SERVICE_URL")
    if not url:
        return None
    parsed = urlparse(url)
    return parsed.hostname or "127.0.0.1", parsed.port or 80, os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/")


def serve(
    course: Course,
    assignment: str,
    language: str,
    grader: str = "",
    port: int = 0,
    token: bool = True,
    open_message=print,
) -> None:
    started = time.perf_counter()
    host, prefix = "127.0.0.1", "/"
    hub = hub_binding()
    if hub is not None:
        host, port, prefix = hub
    app = GradingApp(course, assignment, language, grader, secrets.token_urlsafe(24) if token else None, prefix)
    grouped = app.prepare()
    server = make_server(app, host, port)
    address = f"http://{host}:{server.server_address[1]}{prefix}"
    if app.token:
        address += f"?token={app.token}"
    open_message(
        f"grading {assignment} ({', '.join(grouped) or 'no manually graded question'}; grouped in "
        f"{time.perf_counter() - started:.1f} s): open {address}  (Ctrl+C stops)"
    )
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        app.desk.writer.close()
