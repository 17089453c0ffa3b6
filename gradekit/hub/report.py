"""``gradekit report --serve``: the class reports and the feedback pages they link to, in the hub.

For the course's instructors only (gradekit.web.auth), under the service's prefix, the same
tree as on disk, so that the report's links to each student's feedback page work as they do
from ``file://``::

    <prefix>                                           the assignments served, each linked
    <prefix>reports/<assignment>/                      its report, written again when it is older
                                                       than REFRESH seconds (the class keeps handing in)
    <prefix>reports/<assignment>/<file>                report.json, report.csv, integrity.html
    <prefix>feedback/<student>/<assignment>/<file>     the instructor's copy of a feedback page

Nothing else of the course is reachable: names are checked as ids, files are the course's own
(no link out of it), and only .html, .json and .csv are served.
"""

from __future__ import annotations

import asyncio
import html
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tornado import web

from gradekit.errors import GradekitError
from gradekit.untrusted import require_id

REFRESH = 30.0  # seconds a report is shown before it is written again from the gradebook
_FILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(html|json|csv)$")
_TYPES = {"html": "text/html; charset=utf-8", "json": "application/json", "csv": "text/csv; charset=utf-8"}
_POOL = ThreadPoolExecutor(2, thread_name_prefix="gradekit-report")
_LOCKS: dict[str, threading.Lock] = {}


def _fresh(course, assignment: str) -> Path:
    """reports/<assignment>/index.html, written again when missing or older than REFRESH."""
    from gradekit.pages.report.build import write_report

    page = course.root / "reports" / assignment / "index.html"
    with _LOCKS.setdefault(assignment, threading.Lock()):
        try:
            age = time.time() - page.stat().st_mtime
        except OSError:
            age = float("inf")
        if age > REFRESH:
            write_report(course, assignment)
    return page


class _Files:
    settings: dict[str, Any]

    def _send(self, path: Path) -> None:
        root = self.settings["gradekit_course"].root.resolve()
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(root) or not real.is_file():
            raise web.HTTPError(404, "no such page")
        self.set_header("Content-Type", _TYPES[real.suffix[1:]])  # type: ignore[attr-defined]
        self.write(real.read_bytes())  # type: ignore[attr-defined]

    def _ids(self, **names: str) -> None:
        try:
            for kind, value in names.items():
                require_id(kind, value)
        except GradekitError as exc:
            raise web.HTTPError(404, str(exc)) from None


class _Index(_Files):
    def get(self) -> None:
        course = self.settings["gradekit_course"]
        items = "".join(
            f'<li><a href="reports/{html.escape(a)}/">{html.escape(a)}</a></li>' for a in self.settings["assignments"]
        )
        self.set_header("Content-Type", "text/html; charset=utf-8")  # type: ignore[attr-defined]
        self.write(  # type: ignore[attr-defined]
            f"<!doctype html><meta charset=utf-8><title>{html.escape(course.course_id)}: class reports</title>"
            f"<h1>{html.escape(course.course_id)}: class reports</h1><ul>{items}</ul>"
        )


class _Report(_Files):
    async def get(self, assignment: str, name: str = "") -> None:
        self._ids(assignment=assignment)
        if assignment not in self.settings["assignments"]:
            raise web.HTTPError(404, f"{assignment} is not served here")
        course = self.settings["gradekit_course"]
        if not name or name == "index.html":
            try:
                page = await asyncio.get_running_loop().run_in_executor(_POOL, _fresh, course, assignment)
            except GradekitError as exc:
                raise web.HTTPError(409, str(exc)) from None
            return self._send(page)
        if not _FILE.match(name):
            raise web.HTTPError(404, "no such page")
        self._send(course.root / "reports" / assignment / name)


class _Feedback(_Files):
    def get(self, student: str, assignment: str, name: str) -> None:
        self._ids(student=student, assignment=assignment)
        if not _FILE.match(name) or not name.endswith(".html"):
            raise web.HTTPError(404, "no such page")
        self._send(self.settings["gradekit_course"].feedback_dir(student, assignment) / name)


def serve(course, assignments: list[str], say=print) -> None:
    """Serve the reports inside the hub until SIGTERM or SIGINT (see the module's docstring)."""
    from gradekit.errors import UsageError
    from gradekit.web import serving as hubweb

    def make_app(b: hubweb.Binding) -> web.Application:
        if not b.in_hub:
            raise UsageError(
                "gradekit report --serve runs inside a JupyterHub (its entry in gradekit hub-config); "
                "alone, open reports/<assignment>/index.html"
            )
        from gradekit.web.auth import InstructorPage, oauth_callback, service_settings

        p = b.prefix
        handlers = [
            (p, type("ReportIndex", (_Index, InstructorPage), {})),
            (p + r"reports/([^/]+)/(?:([^/]+))?", type("ReportPage", (_Report, InstructorPage), {})),
            (p + r"feedback/([^/]+)/([^/]+)/([^/]+)", type("FeedbackPage", (_Feedback, InstructorPage), {})),
            oauth_callback(p),
        ]
        return web.Application(
            handlers, gradekit_course=course, assignments=list(assignments), **service_settings(course.course_id)
        )

    hubweb.run(
        make_app,
        ready=lambda address: say(f"class reports of {', '.join(assignments)} of {course.course_id}: open {address}"),
    )
