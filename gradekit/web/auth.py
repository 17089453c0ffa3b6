"""The hub's login for gradekit's web services: who is calling, and whether they teach the course.

Every gradekit service behind a JupyterHub (the grading page, the class report, the hub exchange)
asks the hub who is calling, through jupyterhub's own service auth (``HubOAuth``, on tornado): no
token of gradekit's, no list of names of its own.

Who teaches a course
    The hub role :func:`instructor_role` (``<course>-instructors``), held by the hub group of the
    same name, grants the custom scope :func:`instructor_scope` (``custom:gradekit:instruct:<course>``)
    and access to the course's services. ``gradekit hub-config`` writes the scope, the role, the
    group, and each service's ``oauth_client_allowed_scopes`` (so that the token the hub issues to a
    service for a visitor carries the scope when the visitor holds it). A caller teaches the course
    when their token carries the scope: a hub admin outside the group does not.

The interface::

    Caller                        who a request comes from, as the hub says (frozen)
      .name, .kind                the hub user's (or service's) name; "user" or "service"
      .groups, .scopes            their hub groups; the token's scopes, as the hub expands them
      .may(scope)                 the token holds ``scope`` (filters resolved as the hub does)
      .instructs(course_id)       ... holds instructor_scope(course_id)

    HubIdentity(api_url, api_token) or HubIdentity.from_environment()
      .identify(token, fresh=False) -> Caller | None
                                  asks the hub (GET <api_url>/user, "Authorization: token <token>")
                                  whose token it is: None for one the hub does not know (forged,
                                  expired, revoked); an answer is kept CACHE_SECONDS unless fresh;
                                  a hub that does not answer is HubUnreachable
      await .identify_async(token, fresh=False)      the same, on tornado's loop

    tornado handlers, in an Application made with service_settings(course_id):
      InstructorPage              a page: a visitor not logged in goes through the hub's login and
                                  back (OAuth); one who does not teach the course gets 403 and one
                                  line; self.caller is the Caller
      InstructorAPI               JSON, never a redirect: 403 {"error": ...} unless the caller teaches
                                  the course, by the page's OAuth cookie (a POST with the
                                  X-XSRFToken header the page got as self.xsrf_token) or by
                                  "Authorization: token <hub token>"
      CallerAPI                   JSON for any hub user or service (a student's server token too):
                                  401 without a token the hub knows; self.caller is set and the
                                  handler decides what the caller may do (the hub exchange)
      fresh = True                a handler's class attribute: ask the hub on every request
      oauth_callback(prefix)      the route that completes the hub's OAuth login

    service_settings(course_id)   the Application's settings for a service the hub started, from
                                  its $JUPYTERHUB_* environment (a missing variable is a UsageError
                                  naming it)
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from typing import Any

from gradekit.errors import HubUnreachable, UsageError
from gradekit.extras import require

require("hub", "gradekit's services in a JupyterHub")
from jupyterhub.services.auth import (  # noqa: E402 - after the one line a missing extra gives
    HubOAuth,
    HubOAuthCallbackHandler,
    HubOAuthenticated,
    check_scopes,
)
from tornado import web  # noqa: E402

CACHE_SECONDS = 60  # how long the hub's answer about a token is kept (fresh=True asks every time)
_SLUG = re.compile(r"[^a-z0-9_-]+")


def _slug(course_id: str) -> str:
    """The course id in the characters the hub allows in scope and role names."""
    slug = _SLUG.sub("-", course_id.lower()).strip("-_") or "course"
    return slug if slug[0].isalpha() else f"course-{slug}"


def instructor_scope(course_id: str) -> str:
    """The custom scope that says its holder teaches ``course_id``."""
    return f"custom:gradekit:instruct:{_slug(course_id)}"


def instructor_role(course_id: str) -> str:
    """The hub role (and the hub group holding it) of the course's instructors."""
    return f"{_slug(course_id)}-instructors"


@dataclass(frozen=True)
class Caller:
    """Who a request comes from, as the hub says (see the module's docstring)."""

    name: str
    kind: str = "user"
    groups: frozenset[str] = frozenset()
    scopes: frozenset[str] = frozenset()

    @classmethod
    def of(cls, model: dict) -> Caller:
        """From the hub's model of a token's owner (GET /hub/api/user)."""
        return cls(
            name=str(model["name"]),
            kind=str(model.get("kind") or "user"),
            groups=frozenset(str(g) for g in model.get("groups") or ()),
            scopes=frozenset(str(s) for s in model.get("scopes") or ()),
        )

    def may(self, scope: str) -> bool:
        return bool(check_scopes({scope}, self.scopes))

    def instructs(self, course_id: str) -> bool:
        return self.may(instructor_scope(course_id))


def _hub_auth(api_url: str, api_token: str, prefix: str = "/", client_id: str = "") -> HubOAuth:
    kwargs: dict[str, Any] = {
        "api_url": api_url,
        "api_token": api_token,
        "base_url": prefix,
        "cache_max_age": CACHE_SECONDS,
    }
    # HubOAuth refuses an empty client id; a service without a URL has none and serves no pages
    kwargs["oauth_client_id"] = client_id or "service-gradekit-no-pages"
    return HubOAuth(**kwargs)


def _environment(name: str, why: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise UsageError(f"${name} is not set: {why} (run it as a service the hub starts, from `gradekit hub-config`)")
    return value


class HubIdentity:
    """Asks the hub whose a token is (see the module's docstring)."""

    def __init__(self, api_url: str, api_token: str, auth: HubOAuth | None = None):
        self.auth = auth or _hub_auth(api_url, api_token)

    @classmethod
    def from_environment(cls) -> HubIdentity:
        return cls(
            _environment("JUPYTERHUB_API_URL", "the hub's API is asked who calls"),
            _environment("JUPYTERHUB_API_TOKEN", "the service's own token asks the hub"),
        )

    def identify(self, token: str, fresh: bool = False) -> Caller | None:
        if not token:
            return None
        try:
            model = self.auth.user_for_token(token, use_cache=not fresh)
        except web.HTTPError as exc:
            raise HubUnreachable(f"the hub at {self.auth.api_url} does not answer: {exc.log_message}") from None
        return Caller.of(model) if model else None

    async def identify_async(self, token: str, fresh: bool = False) -> Caller | None:
        if not token:
            return None
        try:
            model = await self.auth.user_for_token(token, use_cache=not fresh, sync=False)
        except web.HTTPError as exc:
            raise HubUnreachable(f"the hub at {self.auth.api_url} does not answer: {exc.log_message}") from None
        return Caller.of(model) if model else None


def service_settings(course_id: str, **extra: Any) -> dict[str, Any]:
    """The tornado Application settings of a gradekit service started by the hub (its environment)."""
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX") or "/"
    auth = _hub_auth(
        _environment("JUPYTERHUB_API_URL", "the hub's API is asked who calls"),
        _environment("JUPYTERHUB_API_TOKEN", "the service's own token asks the hub"),
        prefix,
        os.environ.get("JUPYTERHUB_CLIENT_ID", ""),
    )
    return {
        "hub_auth": auth,
        "hub_identity": HubIdentity("", "", auth),
        "gradekit_course_id": course_id,
        # the OAuth cookie is signed with it: a restarted service sends its visitors through the login again
        "cookie_secret": secrets.token_bytes(32),
        **extra,
    }


def oauth_callback(prefix: str) -> tuple[str, type]:
    """The route where the hub's OAuth login comes back to the service."""
    return (prefix.rstrip("/") + "/oauth_callback", _Callback)


# -- the handlers -------------------------------------------------------------------------------


class _HubAuthenticated(HubOAuthenticated):
    """jupyterhub's mixin, with the HubOAuth of the Application's settings (not a process-wide singleton)."""

    settings: dict[str, Any]

    @property
    def hub_auth(self):
        return self.settings["hub_auth"]

    @hub_auth.setter
    def hub_auth(self, auth):  # jupyterhub's mixin may set it; the settings' one is kept
        pass


class _Callback(_HubAuthenticated, HubOAuthCallbackHandler):
    pass


class _Base(_HubAuthenticated, web.RequestHandler):
    """Finds the Caller once per request, before the handler's method runs."""

    fresh = False  # ask the hub on every request instead of keeping its answer CACHE_SECONDS
    caller: Caller | None = None

    async def prepare(self) -> None:
        header = self.hub_auth.get_token(self, in_cookie=False)
        if header:  # Authorization: token ... (never a cookie: no cross-site request can carry it)
            identity: HubIdentity = self.settings["hub_identity"]
            try:
                self.caller = await identity.identify_async(header, fresh=self.fresh)
            except HubUnreachable as exc:
                raise web.HTTPError(503, str(exc)) from None
            self._token_authenticated = True  # jupyterhub's flag: no XSRF check for a token
        else:  # the OAuth cookie (its XSRF check on a POST is HubOAuth's)
            model = await self.hub_auth.get_user(self, sync=False)
            self.caller = Caller.of(model) if model else None
        self.current_user = self.caller
        await self.admit()

    async def admit(self) -> None:
        raise NotImplementedError

    @property
    def course_id(self) -> str:
        return self.settings["gradekit_course_id"]

    def refusal(self) -> str:
        assert self.caller is not None
        return (
            f"{self.caller.name} does not teach {self.course_id} (the hub group {instructor_role(self.course_id)} "
            f"holds its scope {instructor_scope(self.course_id)}): ask the course's instructor to add you"
        )

    def set_default_headers(self) -> None:
        from gradekit.web.serving import security_headers

        security_headers(self)


class InstructorPage(_Base):
    """A page for the course's instructors only (see the module's docstring)."""

    async def admit(self) -> None:
        if self.caller is None:
            if self.request.method in ("GET", "HEAD"):
                self.redirect(self.get_login_url())
                return
            raise web.HTTPError(403, "log in to the hub first")
        if not self.caller.instructs(self.course_id):
            raise web.HTTPError(403, self.refusal())

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None))[1]
        line = exc.log_message if isinstance(exc, web.HTTPError) and exc.log_message else self._reason
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"gradekit: {line}\n")


class _JSON(_Base):
    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None))[1]
        line = exc.log_message if isinstance(exc, web.HTTPError) and exc.log_message else self._reason
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"error": line}, ensure_ascii=False))

    def get_login_url(self) -> str:  # an API never redirects to a login page
        raise web.HTTPError(401, "no hub token: send 'Authorization: token <your hub token>'")


class InstructorAPI(_JSON):
    """JSON for the course's instructors only (see the module's docstring)."""

    async def admit(self) -> None:
        if self.caller is None:
            raise web.HTTPError(403, "not logged in to the hub (or a token the hub does not know)")
        if not self.caller.instructs(self.course_id):
            raise web.HTTPError(403, self.refusal())


class CallerAPI(_JSON):
    """JSON for any hub user or service; the handler decides what ``self.caller`` may do."""

    async def admit(self) -> None:
        if self.caller is None:
            raise web.HTTPError(401, "no token the hub knows: send 'Authorization: token <your hub token>'")
