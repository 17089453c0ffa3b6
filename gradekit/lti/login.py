"""The hub's login from the LMS: jupyterhub-ltiauthenticator's LTI13Authenticator, with what it lacks.

It checks the id_token's signature (the platform's JWKS), ``iss``, ``aud``, ``iat`` (max_age), the
state and nonce against its cookies, and ``azp`` only when ``aud`` is a list. Added here:

    deployment_id   one of the course's deployments (it reads none: any deployment of the platform's,
                    in any course where the tool is installed, would log in)
    azp             when present, the tool's client id (also with a single aud)
    exp             required (PyJWT checks it only when it is there)
    nonce           used once: a replayed launch (its form and cookies captured) is refused; the nonces
                    seen are kept for max_age in the hub's state folder, across hub restarts
    username        a valid gradekit id (letters, digits and ``_.@+-``), else refused
    /hub/lti13/config   the course's Canvas JSON (gradekit lti tool-config's), not the library's own,
                    which has no JWKS URL
    each refusal    one line in the hub's log and one line of JSON to the browser (never a page with a
                    traceback)

A launch logs the person in with their LTI roles mapped to the course's instructors group (Instructor,
TeachingAssistant, ContentDeveloper, Administrator, Mentor of the context: ``manage_groups``; anyone
else is a student and leaves the group at their next launch), records it for the course
(:mod:`gradekit.lti.spool`), and goes to the launch's target; a deep-linking request goes to the
course's picker (``/services/gradekit-lti/pick``), the request's claims kept for it.

The hub imports this from the students' venv (``make deploy``): nothing here needs more than
jupyterhub, jupyterhub-ltiauthenticator and the standard library.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.error import InvalidAudienceError, ValidationError
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13ConfigHandler
from tornado.web import HTTPError
from traitlets import Set, Unicode

from gradekit.changes import poke_at
from gradekit.lti import claims, spool
from gradekit.lti.platform import SERVICE

NONCE_AGE = 900  # seconds a nonce is remembered: more than the launch's max_age (600 s) and its leeway


class Refused(Exception):
    def __init__(self, status: int, line: str):
        super().__init__(line)
        self.status = status


class NonceBook:
    """Nonces seen, in an SQLite file: each accepted once."""

    def __init__(self, path: str):
        self.path = path

    def first_use(self, nonce: str) -> bool:
        if not self.path:
            return True
        now = time.time()
        with sqlite3.connect(self.path, timeout=10) as db:
            db.execute("CREATE TABLE IF NOT EXISTS nonce (value TEXT PRIMARY KEY, seen REAL NOT NULL)")
            db.execute("DELETE FROM nonce WHERE seen < ?", (now - NONCE_AGE,))
            try:
                db.execute("INSERT INTO nonce VALUES (?, ?)", (nonce, now))
            except sqlite3.IntegrityError:
                return False
        return True


class GradekitCallbackHandler(LTI13CallbackHandler):
    async def post(self):
        try:
            token = self.decode_and_validate_launch_request()
            self._more_checks(token)
            user = await self.login_user(token)
            if user is None:
                raise Refused(403, "the hub did not let this person in")
        except HTTPError as exc:
            return self._refuse(exc.status_code, exc.log_message or exc.reason or "refused")
        except InvalidAudienceError as exc:  # a token for another tool: 401, as the authenticator answers it
            return self._refuse(401, str(exc))
        except ValidationError as exc:
            return self._refuse(400, str(exc))
        except Refused as exc:
            return self._refuse(exc.status, str(exc))
        auth = self.authenticator
        folder = Path(auth.course) / ".gradekit" / "lti" if auth.course else None
        if token.get(claims.MESSAGE_TYPE) == "LtiDeepLinkingRequest" and folder is not None:
            rid = spool.record_request(folder, token, user.name)
            self.redirect(f"{self.hub.base_url.replace('/hub/', '/')}services/{SERVICE}/pick?request={rid}")
            return
        if folder is not None:
            try:
                spool.record_launch(folder, token, user.name)
                poke_at(folder.parent / "changes.sock")  # the course's LTI service reads it in at once
            except OSError as exc:
                self.log.warning("LTI launch of %s not recorded for the course: %s", user.name, exc)
        await self.redirect_to_next_url(user)

    def _more_checks(self, token: dict) -> None:
        auth = self.authenticator
        deployment = token.get(claims.DEPLOYMENT_ID)
        if deployment not in auth.deployment_ids:
            raise Refused(401, f"deployment_id {deployment!r} is not one of this course's")
        azp = token.get("azp")
        if azp is not None and azp not in auth.client_id:
            raise Refused(401, "azp is not this tool's client id")
        if "exp" not in token:
            raise Refused(401, "the id_token has no exp")
        if not NonceBook(auth.nonce_file).first_use(str(token.get("nonce"))):
            raise Refused(401, "this launch was used before (nonce replayed)")

    def _refuse(self, status: int, line: str) -> None:
        line = " ".join(str(line).split())[:300]
        self.log.warning("LTI launch refused (%s): %s", status, line)
        self.clear()
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"error": f"LTI launch refused: {line}"}))


class GradekitConfigHandler(LTI13ConfigHandler):
    """``/hub/lti13/config``: the course's Canvas JSON, as ``gradekit lti tool-config --lms canvas`` prints it.

    jupyterhub-ltiauthenticator's own has no JWKS URL (the LMS would refuse every score), scopes gradekit
    does not use and no ``username`` custom field: an admin who pastes it gets a tool that cannot work."""

    async def get(self) -> None:
        from gradekit.lti.platform import FILE, ToolURLs
        from gradekit.lti.registration import canvas

        auth = self.authenticator
        hub_url = f"{auth.get_uri_scheme(self.request)}://{self.request.host}/"
        try:
            hub_url = json.loads((Path(auth.course) / ".gradekit" / "lti" / FILE).read_text())["hub_url"] or hub_url
        except (OSError, ValueError, KeyError, TypeError):
            pass
        title = auth.instructors_group.removesuffix("-instructors") or Path(auth.course).name or "gradekit"
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(canvas(ToolURLs(hub_url), title, auth.username_key), indent=2))


class GradekitLTI13Authenticator(LTI13Authenticator):
    """LTI13Authenticator with the checks above, LTI roles to the instructors group, launches recorded."""

    callback_handler = GradekitCallbackHandler
    config_handler = GradekitConfigHandler

    deployment_ids = Set(Unicode(), config=True, help="the course's deployment ids at the platform")
    course = Unicode("", config=True, help="the course directory: launches are recorded in its .gradekit/lti")
    instructors_group = Unicode("", config=True, help="the hub group of the course's instructors")
    nonce_file = Unicode("", config=True, help="an SQLite file of the nonces seen (in the hub's state folder)")

    async def authenticate(self, handler, data=None):
        from gradekit.untrusted import is_valid_id

        model = await super().authenticate(handler, data)
        name = str(model["name"]).strip().lower()
        if not is_valid_id(name):
            raise Refused(400, f"the username claim {self.username_key!r} gives {name!r}: not a valid id")
        model["name"] = name
        roles = (data or {}).get(claims.ROLES) or []
        model["groups"] = [self.instructors_group] if self.instructors_group and claims.teaches(roles) else []
        return model
