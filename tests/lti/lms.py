"""An independent LTI 1.3 platform for the tests: lti1p3platform 0.1.8 served with FastAPI and uvicorn.

lti1p3platform builds and signs the id_token (its Registration, LTIAdvantageMessageLaunchAbstract with
the AGS, NRPS and deep-linking claims, its OIDC login's preflight URL) and issues service tokens. Its
known bugs are wrapped, and every check a real LMS makes that it skips is made here, so that a tool
this LMS takes is one the big LMSs take:

- its FastAPI modules import pkg_resources (gone from recent setuptools): not imported; the launch
  form is rendered here, autoescaped (its template is not), to a redirect URI the tool registered;
- its FastAPI request adapter is commented out: requests are read here;
- paging writes ``rel=next`` unquoted and adds 1 to a string: pages and ``Link: <...>; rel="next"`` here;
- a token with any of a service's scopes passes its check: each endpoint here needs its own scope
  (a result.readonly token cannot post scores); a malformed or expired token is 401, not 500;
- token issuance checks no assertion type, iss/sub, aud, exp or jti: all checked, a jti once;
- its kid is None (jwcrypto's export has none): the platform's key carries its thumbprint as kid;
- deep-link answers: iss, aud, deployment_id and data checked; scores: the AGS rules (timestamp
  order, ISO 8601 with a zone, scoreMaximum with scoreGiven, learners only, submitted_at not ahead).

The course: one LMS course (``ctx``), one instructor and ``students`` learners. Tests read the
gradebook at ``GET /test/gradebook`` and take the LMS down with ``POST /test/control``.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as PlatformRequest

SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINEITEM, LINEITEM_READ, SCORE = SCOPE + "lineitem", SCOPE + "lineitem.readonly", SCOPE + "score"
RESULT_READ = SCOPE + "result.readonly"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
ACTIVITY = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}


async def _form(request: Request) -> dict:
    """A form body (no python-multipart: urlencoded forms alone)."""
    from urllib.parse import parse_qsl

    return dict(parse_qsl((await request.body()).decode()))


class _Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _pem_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


class _Registration(Registration):
    """lti1p3platform's Registration, its key given a kid (its own get_kid gives None)."""

    def get_kid(self):
        from jwcrypto.jwk import JWK

        key = self.get_platform_private_key()
        return JWK.from_pem(key.encode()).thumbprint() if key else None

    def get_jwks(self):
        keys = super().get_jwks()
        for k in keys:
            k["kid"] = self.get_kid()
        return keys


class _Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs):
        self._registration = kwargs["registration"]
        self._jwt_verify_options = {"verify_aud": False}

    def get_registration_by_params(self, **kwargs):
        return self._registration


class _Req(PlatformRequest):
    def build_metadata(self, request):
        return request


class _Launch(LTIAdvantageMessageLaunchAbstract):
    def __init__(self, request, conf, preflight):
        super().__init__(request, conf)
        self._preflight = preflight

    def get_preflight_response(self):
        return self._preflight

    def render_launch_form(self, launch_data, **kwargs):
        return launch_data


class _Login(OIDCLoginAbstract):
    def __init__(self, request, conf, hint):
        super().__init__(request, conf)
        self._lti_message_hint = hint

    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs.get("hint")

    def get_redirect(self, url):
        return url


@dataclass
class Person:
    sub: str
    username: str
    name: str
    email: str
    roles: list[str]


@dataclass
class State:
    lineitems: dict[str, dict] = field(default_factory=dict)  # id -> line item
    applied: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # (item, user) -> scores applied
    posts: dict[tuple[str, str], int] = field(default_factory=dict)  # (item, user) -> score POSTs answered 2xx
    received: dict[tuple[str, str], list[float]] = field(default_factory=dict)  # when each applied score came
    refused: list[str] = field(default_factory=list)
    links: list[dict] = field(default_factory=list)  # resource links made by deep linking
    jtis: set[str] = field(default_factory=set)
    nonces: dict[str, str] = field(default_factory=dict)
    down_until: float = 0.0
    score_delay: float = 0.0  # seconds a score's answer waits after it was applied
    forge: dict = field(default_factory=dict)  # a test's bad launch: claims overridden, "lifetime", "other_key"


class LMS:
    """The platform (see the module's docstring); ``app`` is its FastAPI application."""

    def __init__(
        self,
        base: str,
        students: int = 2,
        context: str = "ctx1",
        tool_jwks_url: str = "",
        tool_login_url: str = "",
        tool_redirect_uris: tuple[str, ...] = (),
        deep_link_url: str = "",
        launch_url: str = "",
        username_claim: str = "custom_username",
        names: list[str] | None = None,
    ):
        self.base = base.rstrip("/")
        self.issuer = self.base
        self.client_id = "gradekit-tool-" + uuid.uuid4().hex[:8]
        self.deployment_id = "dep-1"
        self.context = context
        self.token_url = self.base + "/token"
        private, public = _pem_pair()
        self.registration = (
            _Registration()
            .set_iss(self.issuer)
            .set_client_id(self.client_id)
            .set_deployment_id(self.deployment_id)
            .set_platform_private_key(private)
            .set_platform_public_key(public)
        )
        self.public_key = public
        self.tool(tool_jwks_url, tool_login_url, tool_redirect_uris, deep_link_url, launch_url)
        names = names or [f"s{i:03d}" for i in range(students)]
        self.people = {"u-prof": Person("u-prof", "prof", "Pat Prof", "prof@example.edu", [INSTRUCTOR])}
        for i, username in enumerate(names):
            sub = f"u-{i:03d}-{uuid.uuid4().hex[:6]}"
            self.people[sub] = Person(sub, username, f"Student {username}", f"{username}@example.edu", [LEARNER])
        self.state = State()
        self.lock = threading.Lock()
        self.conf = _Conf(registration=self.registration)
        self.app = self._app()

    def tool(self, jwks_url="", login_url="", redirect_uris=(), deep_link_url="", launch_url="") -> None:
        """Register the tool's URLs (as an admin does in the LMS)."""
        self.tool_jwks_url, self.tool_login_url = jwks_url, login_url
        self.redirect_uris, self.deep_link_url, self.launch_url = tuple(redirect_uris), deep_link_url, launch_url
        self.registration.set_tool_key_set_url(jwks_url)
        self.registration._tool_keyset = None
        self.registration.set_oidc_login_url(login_url).set_launch_url(launch_url or login_url)
        if deep_link_url:
            self.registration.set_deeplink_launch_url(deep_link_url)

    # -- what a test reads --------------------------------------------------------------------------
    def by_username(self, username: str) -> Person:
        return next(p for p in self.people.values() if p.username == username)

    def claims_for(self, person: Person) -> dict:
        return {
            "lineitems": self.base + f"/courses/{self.context}/lineitems",
            "memberships": self.base + f"/courses/{self.context}/memberships",
        }

    # -- the application --------------------------------------------------------------------------
    def _app(self) -> FastAPI:
        app = FastAPI()
        lms = self

        @app.middleware("http")
        async def outage(request: Request, call_next):
            if time.time() < lms.state.down_until and not request.url.path.startswith("/test/"):
                return Response("down for maintenance", status_code=503)
            return await call_next(request)

        @app.exception_handler(_Refused)
        async def refused(request: Request, exc: _Refused):
            return JSONResponse({"error": str(exc)}, status_code=exc.status)

        @app.get("/jwks")
        def jwks():
            return {"keys": lms.registration.get_jwks()}

        @app.post("/token")
        async def token(request: Request):
            form = await _form(request)
            try:
                return lms._token(form)
            except _Refused as exc:
                lms.state.refused.append(f"token: {exc}")
                return JSONResponse({"error": "invalid_client", "error_description": str(exc)}, status_code=exc.status)

        @app.get("/courses/{ctx}/lineitems")
        def list_items(ctx: str, request: Request):
            lms._auth(request, {LINEITEM, LINEITEM_READ})
            q = request.query_params
            items = [
                i
                for i in lms.state.lineitems.values()
                if all(
                    not q.get(k) or i.get(f) == q.get(k)
                    for k, f in (("resource_id", "resourceId"), ("tag", "tag"), ("resource_link_id", "resourceLinkId"))
                )
            ]
            return lms._page(
                request, sorted(items, key=lambda i: i["id"]), "application/vnd.ims.lis.v2.lineitemcontainer+json"
            )

        @app.post("/courses/{ctx}/lineitems")
        async def make_item(ctx: str, request: Request):
            lms._auth(request, {LINEITEM})
            body = await request.json()
            if not body.get("label") or not float(body.get("scoreMaximum") or 0) > 0:
                raise _Refused(400, "label and scoreMaximum > 0 are required")
            with lms.lock:
                item_id = f"{lms.base}/courses/{ctx}/lineitems/{len(lms.state.lineitems) + 1}"
                item = {
                    **{
                        k: body[k]
                        for k in ("label", "scoreMaximum", "resourceId", "tag", "resourceLinkId")
                        if k in body
                    },
                    "id": item_id,
                }
                lms.state.lineitems[item_id] = item
            return JSONResponse(item, status_code=201, media_type="application/vnd.ims.lis.v2.lineitem+json")

        @app.get("/courses/{ctx}/lineitems/{n}")
        def get_item(ctx: str, n: str, request: Request):
            lms._auth(request, {LINEITEM, LINEITEM_READ})
            item = lms.state.lineitems.get(f"{lms.base}/courses/{ctx}/lineitems/{n}")
            if item is None:
                raise _Refused(404, "no such line item")
            return item

        @app.post("/courses/{ctx}/lineitems/{n}/scores")
        async def score(ctx: str, n: str, request: Request):
            lms._auth(request, {SCORE})
            body = await request.json()
            item_id = f"{lms.base}/courses/{ctx}/lineitems/{n}"
            try:
                lms._apply(item_id, body)
            except _Refused as exc:
                lms.state.refused.append(f"score: {exc}")
                raise
            if lms.state.score_delay:
                import asyncio

                await asyncio.sleep(lms.state.score_delay)
            return Response(status_code=200)

        @app.get("/courses/{ctx}/memberships")
        def members(ctx: str, request: Request):
            lms._auth(request, {NRPS})
            people = [
                {
                    "user_id": p.sub,
                    "roles": p.roles,
                    "status": "Active",
                    "name": p.name,
                    "given_name": p.name.split()[0],
                    "family_name": p.name.split()[-1],
                    "email": p.email,
                }
                for p in lms.people.values()
            ]
            return lms._page(
                request,
                people,
                "application/vnd.ims.lti-nrps.v2.membershipcontainer+json",
                wrap=lambda page: {"id": str(request.url), "context": {"id": ctx}, "members": page},
            )

        @app.get("/launch")
        def launch(user: str, kind: str = "resource"):
            """The LMS's link: OIDC login initiation at the tool (lti1p3platform's preflight URL)."""
            person = lms.by_username(user)
            hint = json.dumps({"kind": kind})
            login = _Login(None, lms.conf, hint)
            if kind == "deep":
                login.set_deeplinking_launch_url()
            return RedirectResponse(login.prepare_preflight_url(person.sub), status_code=302)

        @app.get("/authorize")
        def authorize(request: Request):
            q = dict(request.query_params)
            return HTMLResponse(lms._authorize(q))

        @app.post("/deep_link_return")
        async def deep_link_return(request: Request):
            form = await _form(request)
            try:
                items = lms._deep_link_return(str(form.get("JWT", "")))
            except _Refused as exc:
                lms.state.refused.append(f"deep link: {exc}")
                raise
            return HTMLResponse(f"<p id='made'>{len(items)} item(s) added</p>")

        @app.get("/test/gradebook")
        def gradebook():
            with lms.lock:
                return {
                    "lineitems": list(lms.state.lineitems.values()),
                    "scores": [
                        {
                            "lineitem": k[0],
                            "user": k[1],
                            "username": lms.people[k[1]].username if k[1] in lms.people else "",
                            "applied": v,
                            "received": lms.state.received.get(k, []),
                            "posts": lms.state.posts.get(k, 0),
                        }
                        for k, v in lms.state.applied.items()
                    ],
                    "refused": lms.state.refused,
                    "links": lms.state.links,
                }

        @app.post("/test/control")
        async def control(request: Request):
            body = await request.json()
            if "down_for" in body:
                lms.state.down_until = time.time() + float(body["down_for"])
            if "score_delay" in body:
                lms.state.score_delay = float(body["score_delay"])
            if "tool_jwks" in body:  # the tool's keys, as an admin pastes them (no JWKS URL without a hub)
                lms.registration.set_tool_key_set(body["tool_jwks"])
            return {"ok": True}

        @app.get("/test/registration")
        def registration():
            return {
                "issuer": lms.issuer,
                "client_id": lms.client_id,
                "deployment_id": lms.deployment_id,
                "token_url": lms.token_url,
                "people": {p.username: p.sub for p in lms.people.values()},
            }

        @app.post("/test/id_token")
        async def make_id_token(request: Request):
            """A launch's id_token for a user, as /authorize signs it (for a bench's many launches)."""
            body = await request.json()
            person = lms.by_username(body["user"])
            q = {
                "response_type": "id_token",
                "scope": "openid",
                "response_mode": "form_post",
                "prompt": "none",
                "client_id": lms.client_id,
                "redirect_uri": lms.redirect_uris[0],
                "login_hint": person.sub,
                "nonce": uuid.uuid4().hex,
                "state": "s",
                "lti_message_hint": "{}",
            }
            page = lms._authorize(q)
            import re

            return {"id_token": html.unescape(re.search(r"name='id_token' value='([^']+)'", page).group(1))}

        return app

    # -- checks a real LMS makes ---------------------------------------------------------------------
    def _token(self, form: dict) -> dict:
        if form.get("grant_type") != "client_credentials":
            raise _Refused(400, "grant_type must be client_credentials")
        if form.get("client_assertion_type") != JWT_BEARER:
            raise _Refused(400, "client_assertion_type must be jwt-bearer")
        assertion = str(form.get("client_assertion", ""))
        try:
            header = jwt.get_unverified_header(assertion)
            keys = self.conf.get_tool_key_set()["keys"]
            key = next((k for k in keys if k.get("kid") == header.get("kid")), None)
            if key is None:
                raise _Refused(401, f"no key {header.get('kid')!r} in the tool's JWKS")
            claims = jwt.decode(
                assertion,
                jwt.PyJWK(key).key,
                algorithms=["RS256"],
                audience=self.token_url,
                options={"require": ["exp", "iat", "jti", "iss", "sub", "aud"]},
            )
        except jwt.PyJWTError as exc:
            raise _Refused(401, f"client assertion: {exc}") from None
        if claims["iss"] != self.client_id or claims["sub"] != self.client_id:
            raise _Refused(401, "client assertion: iss and sub must be the client id")
        with self.lock:
            if claims["jti"] in self.state.jtis:
                raise _Refused(401, "client assertion: jti used before")
            self.state.jtis.add(claims["jti"])
        granted = [
            s for s in str(form.get("scope", "")).split() if s in (LINEITEM, LINEITEM_READ, SCORE, RESULT_READ, NRPS)
        ]
        token = self.registration.platform_encode_and_sign(
            {"iss": self.issuer, "sub": self.client_id, "scopes": " ".join(granted)}, expiration=3600
        )
        return {"access_token": token, "token_type": "bearer", "expires_in": 3600, "scope": " ".join(granted)}

    def _auth(self, request: Request, need: set[str]) -> None:
        parts = request.headers.get("Authorization", "").split()
        if len(parts) != 2 or parts[0].lower() != "bearer":
            raise _Refused(401, "a bearer token is required")
        try:
            claims = jwt.decode(parts[1], self.public_key, algorithms=["RS256"], options={"require": ["exp"]})
        except jwt.PyJWTError as exc:
            raise _Refused(401, f"token: {exc}") from None
        if claims.get("iss") != self.issuer:
            raise _Refused(401, "token: not this platform's")
        if not need & set(str(claims.get("scopes", "")).split()):
            raise _Refused(403, f"token: none of the scopes {sorted(need)}")

    def _page(self, request: Request, items: list, media: str, wrap=None) -> Response:
        q = dict(request.query_params)
        limit = int(q.get("limit") or 10)
        page = int(q.get("page") or 1)
        chunk = items[(page - 1) * limit : page * limit]
        headers = {}
        if page * limit < len(items):
            nxt = {**q, "limit": str(limit), "page": str(page + 1)}
            headers["Link"] = f'<{str(request.url).split("?")[0]}?{urlencode(nxt)}>; rel="next"'
        body = wrap(chunk) if wrap else chunk
        return Response(json.dumps(body), media_type=media, headers=headers)

    def _apply(self, item_id: str, body: dict) -> None:
        if item_id not in self.state.lineitems:
            raise _Refused(404, "no such line item")
        user = str(body.get("userId", ""))
        person = self.people.get(user)
        if person is None or LEARNER not in person.roles:
            raise _Refused(403, f"user {user!r} is not a learner of this course")
        if body.get("activityProgress") not in ACTIVITY or body.get("gradingProgress") not in GRADING:
            raise _Refused(400, "activityProgress and gradingProgress are required")
        if "scoreGiven" in body and "scoreMaximum" not in body:
            raise _Refused(422, "scoreMaximum is required with scoreGiven")
        try:
            stamp = dt.datetime.fromisoformat(str(body.get("timestamp", "")).replace("Z", "+00:00"))
            if stamp.tzinfo is None:
                raise ValueError("no time zone")
        except ValueError as exc:
            raise _Refused(400, f"timestamp: {exc}") from None
        submitted = (body.get("https://canvas.instructure.com/lti/submission") or {}).get("submitted_at")
        if submitted and dt.datetime.fromisoformat(submitted.replace("Z", "+00:00")) > dt.datetime.now(dt.UTC):
            raise _Refused(400, "submitted_at is in the future")
        key = (item_id, user)
        with self.lock:
            history = self.state.applied.setdefault(key, [])
            if history:
                last = dt.datetime.fromisoformat(history[-1]["timestamp"].replace("Z", "+00:00"))
                if stamp < last:
                    raise _Refused(400, "score timestamp is before last updated timestamp")
                if stamp == last and history[-1] == body:
                    self.state.posts[key] = self.state.posts.get(key, 0) + 1
                    return  # the same score again: kept once
            history.append(body)
            self.state.received.setdefault(key, []).append(time.time())
            self.state.posts[key] = self.state.posts.get(key, 0) + 1

    def _authorize(self, q: dict) -> str:
        if q.get("response_type") != "id_token" or q.get("scope") != "openid" or q.get("response_mode") != "form_post":
            raise _Refused(400, "an OIDC implicit-flow request (id_token, openid, form_post) is required")
        if q.get("client_id") != self.client_id:
            raise _Refused(400, "unknown client_id")
        if q.get("redirect_uri") not in self.redirect_uris:
            raise _Refused(400, f"redirect_uri {q.get('redirect_uri')!r} is not registered")
        person = self.people.get(q.get("login_hint", ""))
        if person is None or not q.get("nonce") or not q.get("state"):
            raise _Refused(400, "login_hint, nonce and state are required")
        hint = json.loads(q.get("lti_message_hint") or "{}")
        launch = _Launch(None, self.conf, {**q})
        launch._registration = self.registration
        launch.validate_preflight_response(q)
        launch.set_user_data(person.sub, person.roles, person.name, person.email, person.username)
        launch.set_launch_context_claim(
            self.context, ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"], "Transformers 101", "T101"
        )
        launch.set_custom_parameters_claim({"username": person.username})
        launch.set_launch_presentation_claim("window", self.base + "/course")
        launch.set_extra_claims(
            {
                "https://purl.imsglobal.org/spec/lti/claim/tool_platform": {  # as LMSs send it
                    "guid": self.issuer,
                    "name": "gradekit's test LMS",
                    "product_family_code": "lti1p3platform",
                }
            }
        )
        launch.set_nrps(self.base + f"/courses/{self.context}/memberships")
        launch.set_ags(self.base + f"/courses/{self.context}/lineitems", allow_creating_lineitems=True)
        if hint.get("kind") == "deep":
            launch.set_dl(
                self.base + "/deep_link_return",
                accept_types={"ltiResourceLink"},
                extra_data={"opaque": uuid.uuid4().hex},
            )
            launch.set_launch_url(self.deep_link_url)
        else:
            launch.set_resource_link_claim("rl-" + self.context, title="gradekit")
            launch.set_launch_url(self.launch_url or self.tool_login_url)
        forge = dict(self.state.forge)
        if "lifetime" in forge:
            launch.set_id_token_expiration(int(forge.pop("lifetime")))
        other = forge.pop("other_key", False)
        if forge:
            launch.set_extra_claims(forge)
        if other:  # signed by a key the platform's JWKS does not hold
            own = self.registration.get_platform_private_key()
            self.registration.set_platform_private_key(_pem_pair()[0])
            try:
                data = launch.generate_launch_request()
            finally:
                self.registration.set_platform_private_key(own)
        else:
            data = launch.generate_launch_request()
        action = html.escape(q["redirect_uri"], quote=True)
        return (
            "<!doctype html><html><body><form id='f' method='post' action='"
            + action
            + "'>"
            + "".join(
                f"<input type='hidden' name='{k}' value='{html.escape(str(v), quote=True)}'>" for k, v in data.items()
            )
            + "</form><script>document.getElementById('f').submit()</script></body></html>"
        )

    def _deep_link_return(self, token: str) -> list[dict]:
        try:
            header = jwt.get_unverified_header(token)
            keys = self.conf.get_tool_key_set()["keys"]
            key = next((k for k in keys if k.get("kid") == header.get("kid")), None)
            if key is None:
                raise _Refused(401, "no such key in the tool's JWKS")
            claims = jwt.decode(
                token,
                jwt.PyJWK(key).key,
                algorithms=["RS256"],
                audience=self.issuer,
                options={"require": ["exp", "iat", "iss", "aud"]},
            )
        except jwt.PyJWTError as exc:
            raise _Refused(401, f"deep link: {exc}") from None
        if claims["iss"] != self.client_id:
            raise _Refused(401, "deep link: iss must be the client id")
        if claims.get("https://purl.imsglobal.org/spec/lti/claim/deployment_id") != self.deployment_id:
            raise _Refused(401, "deep link: wrong deployment_id")
        if claims.get("https://purl.imsglobal.org/spec/lti/claim/message_type") != "LtiDeepLinkingResponse":
            raise _Refused(400, "deep link: not a LtiDeepLinkingResponse")
        data = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/data")
        if data is None or not isinstance(data, dict) or "opaque" not in data:
            raise _Refused(400, "deep link: the request's data must come back as it was")
        items = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/content_items") or []
        with self.lock:
            for item in items:
                link = {"id": f"rl-{len(self.state.links) + 1}", **item}
                self.state.links.append(link)
                if item.get("lineItem"):  # as platforms do: a line item for a link that asks for one
                    li = item["lineItem"]
                    item_id = f"{self.base}/courses/{self.context}/lineitems/{len(self.state.lineitems) + 1}"
                    self.state.lineitems[item_id] = {
                        "id": item_id,
                        "label": li.get("label", item.get("title")),
                        "scoreMaximum": li.get("scoreMaximum"),
                        "resourceId": li.get("resourceId"),
                        "tag": li.get("tag"),
                        "resourceLinkId": link["id"],
                    }
        return items


class Served:
    """The LMS on loopback in a uvicorn thread of this process."""

    def __init__(self, **kwargs):
        from ports import free_port

        import uvicorn

        port = free_port()
        self.lms = LMS(f"http://127.0.0.1:{port}", **kwargs)
        self.server = uvicorn.Server(
            uvicorn.Config(self.lms.app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 20
        while not self.server.started:
            if time.time() > deadline:
                raise RuntimeError("the test LMS did not start")
            time.sleep(0.02)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def main() -> None:
    """The LMS in a process of its own: an admin's test LMS (docs/admin/lti.md, "Try it first") or bench/lti.py's.

    ``python tests/lti/lms.py --port P --names ada,wei --hub-url http://127.0.0.1:8000/`` registers the
    tool at the hub's address (as an admin fills an LMS's form: its login, redirect, launch, JWKS and
    deep-linking URLs), prints the ``gradekit lti platform`` command that registers this LMS with the
    course, and the links of the LMS course: a launch for each person, the instructor's "add an
    assignment" (deep linking), the gradebook."""
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description="gradekit's test LMS (lti1p3platform, FastAPI)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--names", required=True, help="the learners' usernames, comma-separated (and prof teaches)")
    parser.add_argument("--hub-url", default="", help="the hub's public address: the tool's URLs are made from it")
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    hub = args.hub_url.rstrip("/")
    tool = (
        {
            "tool_jwks_url": f"{hub}/services/gradekit-lti/jwks",
            "tool_login_url": f"{hub}/hub/lti13/oauth_login",
            "tool_redirect_uris": (f"{hub}/hub/lti13/oauth_callback",),
            "deep_link_url": f"{hub}/services/gradekit-lti/pick",
            "launch_url": f"{hub}/hub/",
        }
        if hub
        else {"tool_redirect_uris": ("http://tool.invalid/cb",)}
    )
    lms = LMS(base, names=args.names.split(","), **tool)
    if hub:
        people = sorted(lms.people.values(), key=lambda p: (p.username != "prof", p.username))
        print(
            "the test LMS, its course ctx1 with " + ", ".join(p.username for p in people) + "\n"
            "register it with the course (in the course directory):\n"
            f"  gradekit lti platform --issuer {lms.issuer} --client-id {lms.client_id} "
            f"--deployment {lms.deployment_id} --auth-url {base}/authorize --token-url {lms.token_url} "
            f"--jwks-url {base}/jwks --hub-url {hub}/ --username-claim custom_username\n"
            f"add an assignment (as the instructor): {base}/launch?user=prof&kind=deep\n"
            + "".join(f"launch as {p.username}: {base}/launch?user={p.username}\n" for p in people)
            + f"the LMS's gradebook: {base}/test/gradebook",
            flush=True,
        )
    uvicorn.run(lms.app, host="127.0.0.1", port=args.port, log_level="warning", lifespan="off")


if __name__ == "__main__":
    main()
