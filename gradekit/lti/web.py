"""``gradekit lti serve``: the course's LTI service in the hub, and the sender's loop beside it.

    /services/gradekit-lti/         what is here, one line of JSON (the hub looks at it as it starts)
    /services/gradekit-lti/jwks     the tool's public keys (no login: the LMS reads them)
    /services/gradekit-lti/pick     the deep-linking picker: the course's assignments, for the
                                    instructors only (the hub's login and the course's instructor
                                    scope: a student's launch gets 403 and one line); choosing one
                                    makes its line item and posts the signed answer to the LMS

The picker reads the deep-linking request the hub's login recorded (its id in the URL), and only
for the user who made it.
"""

from __future__ import annotations

import html
import json
import threading

from tornado import web

from gradekit.lti import deeplink, keys, spool
from gradekit.lti.platform import folder


class _JWKS(web.RequestHandler):
    def get(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "max-age=300")
        self.write(json.dumps(keys.jwks(self.settings["gradekit_course"])))


class _Index(web.RequestHandler):
    """The service's own address: one line saying what is here (the hub looks at it when it starts)."""

    def get(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps({"service": "gradekit-lti", "jwks": "jwks", "pick": "pick"}))


class _Pick:
    """The picker (mixed with gradekit.web.auth.InstructorPage)."""

    def _request(self) -> dict:
        rid = self.get_argument("request", "")  # type: ignore[attr-defined]
        found = spool.read_request(folder(self.settings["gradekit_course"]), rid)  # type: ignore[attr-defined]
        if found is None:
            raise web.HTTPError(
                404, "no such deep-linking request (or over an hour old): add the tool again from the LMS"
            )
        if found.get("username") != self.caller.name:  # type: ignore[attr-defined]
            raise web.HTTPError(403, "this deep-linking request is another person's")
        return found["claims"]

    def get(self) -> None:
        self._request()
        rid = html.escape(self.get_argument("request", ""), quote=True)  # type: ignore[attr-defined]
        course = self.settings["gradekit_course"]  # type: ignore[attr-defined]
        xsrf = html.escape(self.xsrf_token.decode(), quote=True)  # type: ignore[attr-defined]
        items = "".join(
            f"<li><button name='assignment' value='{html.escape(a, quote=True)}'>{html.escape(a)}</button></li>"
            for a in self.settings["assignments"]  # type: ignore[attr-defined]
        )
        self.set_header("Content-Type", "text/html; charset=utf-8")  # type: ignore[attr-defined]
        self.finish(  # type: ignore[attr-defined]
            f"<!doctype html><meta charset=utf-8><title>{html.escape(course.course_id)}: add an assignment</title>"
            f"<h1>Add an assignment of {html.escape(course.course_id)}</h1>"
            f"<form method=post><input type=hidden name=_xsrf value='{xsrf}'>"
            f"<input type=hidden name=request value='{rid}'><ul id=assignments>{items}</ul></form>"
        )

    async def post(self) -> None:
        import asyncio

        request = self._request()
        assignment = self.get_argument("assignment", "")  # type: ignore[attr-defined]
        if assignment not in self.settings["assignments"]:  # type: ignore[attr-defined]
            raise web.HTTPError(404, f"{assignment!r} is not an assignment of this course")
        s = self.settings  # type: ignore[attr-defined]
        from gradekit.errors import LMSUnavailable

        try:
            url, token = await asyncio.get_running_loop().run_in_executor(
                None,
                deeplink.answer,
                s["gradekit_course"],
                s["lti_platform"],
                s["lti_connector"],
                request,
                assignment,
                "",
                self.caller.name,  # type: ignore[attr-defined]
            )
        except LMSUnavailable as exc:
            raise web.HTTPError(502, f"the LMS did not take the line item: {exc}") from None
        self.set_header("Content-Type", "text/html; charset=utf-8")  # type: ignore[attr-defined]
        self.set_header("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; form-action *")  # type: ignore[attr-defined]
        self.finish(deeplink.form(url, token))  # type: ignore[attr-defined]


def serve(course, platform, assignments: list[str], loop, say=print) -> None:
    from gradekit.web import serving as hubweb

    def make_app(b: hubweb.Binding) -> web.Application:
        from gradekit.web.auth import InstructorPage, oauth_callback, service_settings

        p = b.prefix
        handlers = [
            (p, _Index),
            (p + "jwks", _JWKS),
            (p + "pick", type("Pick", (_Pick, InstructorPage), {})),
            oauth_callback(p),
        ]
        extra = service_settings(course.course_id) if b.in_hub else {"cookie_secret": b"x" * 32}
        return web.Application(
            handlers,
            gradekit_course=course,
            assignments=list(assignments),
            lti_platform=platform,
            lti_connector=loop.connector,
            xsrf_cookies=True,
            **extra,
        )

    thread = threading.Thread(target=loop.run, name="gradekit-lti-sender", daemon=True)
    thread.start()
    try:
        hubweb.run(make_app, ready=lambda address: say(f"LTI tool of {course.course_id}: {address}jwks, {address}pick"))
    finally:
        loop.stop.set()
        thread.join(5)
