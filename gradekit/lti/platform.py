"""The LMS a course is registered with, and the tool's own addresses.

``gradekit lti platform`` writes ``.gradekit/lti/platform.json`` (0600) from what the LMS gave when
the tool was registered; everything else of gradekit's LTI side reads it from here::

    issuer          the platform's issuer (the id_token's iss)
    client_id       the tool's client id at the platform (the id_token's aud)
    deployment_ids  the deployments whose launches are let in (the id_token's deployment_id claim)
    auth_url        the platform's OIDC authorization endpoint (where the hub sends the login)
    token_url       the platform's OAuth2 token endpoint (service tokens for AGS and NRPS)
    jwks_url        the platform's public keys (the id_token's signature)
    username_claim  the id_token claim that is a person's hub username and gradebook id
                    ("email", "sub", "preferred_username", or "custom_<name>": the custom claim's
                    <name>, as jupyterhub-ltiauthenticator reads it)
    hub_url         the hub's public address (https://hub.example.edu/), from which every URL the
                    LMS is given is made (:class:`ToolURLs`)
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlparse

from gradekit.errors import UsageError

FOLDER = Path(".gradekit") / "lti"
FILE = "platform.json"
SERVICE = "gradekit-lti"  # the hub service's name: /services/gradekit-lti/
USERNAME_CLAIMS = ("email", "sub", "preferred_username", "given_name")


@dataclass(frozen=True)
class Platform:
    issuer: str
    client_id: str
    deployment_ids: tuple[str, ...]
    auth_url: str
    token_url: str
    jwks_url: str
    hub_url: str
    username_claim: str = "email"

    def __post_init__(self):
        for name in ("issuer", "auth_url", "token_url", "jwks_url", "hub_url"):
            value = getattr(self, name)
            if urlparse(value).scheme not in ("http", "https") or not urlparse(value).netloc:
                raise UsageError(f"LTI platform: {name} must be an http(s) URL, not {value!r}")
        if not self.client_id:
            raise UsageError("LTI platform: no client_id (the LMS gives it when the tool is registered)")
        if not self.deployment_ids:
            raise UsageError("LTI platform: no deployment id (the LMS gives one per place the tool is deployed)")
        claim = self.username_claim
        if claim not in USERNAME_CLAIMS and not (claim.startswith("custom_") and len(claim) > 7):
            raise UsageError(
                f"LTI platform: username claim {claim!r} is none of {', '.join(USERNAME_CLAIMS)} or custom_<name>"
            )

    @property
    def urls(self) -> ToolURLs:
        return ToolURLs(self.hub_url)

    def to_json(self) -> str:
        data = asdict(self)
        data["deployment_ids"] = list(self.deployment_ids)
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: dict) -> Platform:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        if isinstance(known.get("deployment_ids"), str):
            known["deployment_ids"] = [known["deployment_ids"]]
        known["deployment_ids"] = tuple(str(d) for d in known.get("deployment_ids") or ())
        missing = [k for k in ("issuer", "client_id", "auth_url", "token_url", "jwks_url", "hub_url") if k not in known]
        if missing:
            raise UsageError(f"LTI platform: {', '.join(missing)} missing (gradekit lti platform --help)")
        return cls(**known)


@dataclass(frozen=True)
class ToolURLs:
    """Every address of the tool an LMS is given, from the hub's public URL."""

    hub_url: str

    def _at(self, path: str) -> str:
        return self.hub_url.rstrip("/") + path

    @property
    def login(self) -> str:  # OIDC login initiation: jupyterhub-ltiauthenticator's
        return self._at("/hub/lti13/oauth_login")

    @property
    def redirect(self) -> str:  # the launch's redirect URI: its callback
        return self._at("/hub/lti13/oauth_callback")

    @property
    def launch(self) -> str:  # target_link_uri of a resource link: the hub, then the student's server
        return self._at("/hub/")

    @property
    def jwks(self) -> str:
        return self._at(f"/services/{SERVICE}/jwks")

    @property
    def deep_link(self) -> str:
        return self._at(f"/services/{SERVICE}/pick")

    @property
    def domain(self) -> str:
        return urlparse(self.hub_url).netloc


def folder(course) -> Path:
    return course.root / FOLDER


def load(course) -> Platform:
    """The course's platform, or a UsageError of one line naming the command that sets it."""
    path = folder(course) / FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(
            "no LTI platform registered for this course: gradekit lti platform --issuer ... (see docs/admin/lti.md)"
        ) from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: cannot be read ({exc})") from None
    return Platform.from_dict(data)


def save(course, platform: Platform) -> Path:
    base = folder(course)
    base.mkdir(parents=True, exist_ok=True)
    os.chmod(base, 0o700)
    path = base / FILE
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(platform.to_json())
    os.replace(tmp, path)
    return path
