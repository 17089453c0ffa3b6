"""The LMS's services -- service tokens, AGS line items and scores, NRPS -- through pylti1p3next.

pylti1p3next (2.0.2) builds the client-credentials request (a jwt-bearer assertion signed with the
tool's key, its kid, ``iss = sub = client_id``, ``aud`` the token URL, a fresh ``jti``), follows
``Link: <...>; rel="next"`` pages and carries the status of a refused request. What it leaves to its
user, or gets wrong, is done here:

- its ServiceConnector's token cache is abstract: :class:`Connector` keeps each token (per scope set)
  until a minute before it expires;
- its requests have no timeout (a hung LMS would hang the sender): every request here has one;
- ``find_or_create_lineitem`` reads every line item of the course and filters them itself: line items
  are looked up with the ``resource_id`` and ``tag`` filters the spec gives, every page read;
- its Registration gives no kid (the header of what it signs has none): the current key's kid is given;
- ``Grade.set_timestamp`` drops the sub-seconds and writes ``+0000``: scores are posted as the body
  :meth:`gradekit.lti.want.Score.body` makes, with the timestamp it was first given.

Errors become :class:`gradekit.errors.LMSUnavailable` (trying again may help: a timeout, a refused
connection, 408, 429, 5xx) or its :class:`~gradekit.errors.LMSRefused` (any other 4xx: the LMS
refuses that score).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from urllib.parse import urlencode

from gradekit.errors import LMSRefused, LMSUnavailable
from gradekit.lti import claims
from gradekit.lti.keys import current
from gradekit.lti.platform import Platform

TIMEOUT = 10.0  # seconds: one request to the LMS
LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE = "application/vnd.ims.lis.v1.score+json"
MEMBERS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"


def lms_error(message: str, retry: bool, status: int | None = None) -> LMSUnavailable:
    """The error to raise: LMSUnavailable when trying again may help, LMSRefused otherwise."""
    return (LMSUnavailable if retry else LMSRefused)(message, status)


@dataclass(frozen=True)
class LineItem:
    url: str
    label: str
    score_maximum: float
    resource_id: str
    tag: str


def tag_of(course, assignment: str) -> str:
    """The tag by which the course's line item of ``assignment`` is found again (any LMS course)."""
    return f"gradekit:{course.course_id}:{assignment}"


class Connector:
    """One platform's services for one process: a token per scope set, kept until near its end."""

    def __init__(self, course, platform: Platform, timeout: float = TIMEOUT):
        import requests
        from pylti1p3.service_connector import ServiceConnector

        registration = tool_registration(course, platform)
        tokens: dict[str, tuple[str, float]] = {}

        class _Session(requests.Session):
            def request(self, *args, **kwargs):
                kwargs.setdefault("timeout", timeout)
                return super().request(*args, **kwargs)

        class _Connector(ServiceConnector):
            def _get_cached_access_token(self, scope_key):
                found = tokens.get(scope_key)
                return found[0] if found and found[1] > time.time() else None

            def _cache_access_token(self, scope_key, access_token, expires_in):
                tokens[scope_key] = (access_token, time.time() + max(0.0, float(expires_in or 0) - 60))

        session = _Session()
        session.headers["User-Agent"] = "gradekit-lti"
        self._tokens = tokens
        self.connector = _Connector(registration, requests_session=session)

    def request(self, scopes, url: str, *, body: dict | None = None, content_type: str = "", accept: str = ""):
        """A service call: (its JSON body, the next page's URL or None)."""
        import requests
        from pylti1p3.exception import LtiServiceException

        try:
            answer = self.connector.make_service_request(
                list(scopes),
                url,
                is_post=body is not None,
                data=json.dumps(body) if body is not None else None,
                content_type=content_type or "application/json",
                accept=accept or "application/json",
            )
        except LtiServiceException as exc:
            status = exc.response.status_code
            if status == 401:
                self._tokens.clear()  # a token the LMS no longer takes: a new one next time
            text = " ".join((exc.response.text or "").split())[:200]
            retry = status in (401, 408, 425, 429) or status >= 500
            raise lms_error(f"the LMS answered {status} to {_short(url)}: {text}", retry, status) from None
        except requests.RequestException as exc:
            raise lms_error(f"the LMS did not answer {_short(url)}: {type(exc).__name__}", True) from None
        except (ValueError, KeyError) as exc:  # a token answer that is not JSON or has no access_token
            raise lms_error(f"the LMS's answer from {_short(url)} cannot be read: {exc}", True) from None
        return answer["body"], answer["next_page_url"]

    # -- AGS -----------------------------------------------------------------------------------------
    def find_lineitem(self, lineitems_url: str, resource_id: str, tag: str) -> LineItem | None:
        """The course's line item with this resource id and tag, every page read; None if there is none."""
        url: str | None = _with_query(lineitems_url, {"resource_id": resource_id, "tag": tag})
        while url:
            body, url = self.request([claims.SCOPE_LINEITEM], url, accept=LINEITEMS)
            for item in body if isinstance(body, list) else []:
                if item.get("resourceId") == resource_id and item.get("tag") == tag:
                    return _lineitem(item)
        return None

    def create_lineitem(self, lineitems_url: str, label: str, maximum: float, resource_id: str, tag: str) -> LineItem:
        body = {"label": label, "scoreMaximum": maximum, "resourceId": resource_id, "tag": tag}
        made, _next = self.request(
            [claims.SCOPE_LINEITEM], lineitems_url, body=body, content_type=LINEITEM, accept=LINEITEM
        )
        if not isinstance(made, dict) or not made.get("id"):
            raise lms_error(f"the LMS made a line item at {_short(lineitems_url)} but gave no id", True)
        return _lineitem(made)

    def post_score(self, lineitem_url: str, body: dict) -> None:
        self.request([claims.SCOPE_SCORE], _scores_url(lineitem_url), body=body, content_type=SCORE)

    # -- NRPS ----------------------------------------------------------------------------------------
    def members(self, memberships_url: str) -> list[dict]:
        out: list[dict] = []
        url: str | None = memberships_url
        while url:
            body, url = self.request([claims.SCOPE_NRPS], url, accept=MEMBERS)
            out += (body or {}).get("members", []) if isinstance(body, dict) else []
        return out


def tool_registration(course, platform: Platform):
    """pylti1p3next's Registration of the tool, signing with the current key under its kid (its own
    get_kid reads a kid from jwcrypto's export of the public key, which has none: no kid in the header,
    and an LMS with two keys for the tool cannot tell which one)."""
    from pylti1p3.registration import Registration

    key = current(course)

    class _Registration(Registration):
        def get_kid(self):
            return key.kid

    return (
        _Registration()
        .set_issuer(platform.issuer)
        .set_client_id(platform.client_id)
        .set_auth_token_url(platform.token_url)
        .set_tool_private_key(key.pem)
    )


def _lineitem(item: dict) -> LineItem:
    return LineItem(
        str(item["id"]),
        str(item.get("label", "")),
        float(item.get("scoreMaximum") or 0),
        str(item.get("resourceId", "")),
        str(item.get("tag", "")),
    )


def _with_query(url: str, params: dict) -> str:
    return url + ("&" if "?" in url else "?") + urlencode(params)


def _scores_url(lineitem_url: str) -> str:
    """The line item's URL with /scores appended to its path (its query kept)."""
    base, _, query = lineitem_url.partition("?")
    return base.rstrip("/") + "/scores" + (f"?{query}" if query else "")


def _short(url: str) -> str:
    return url.split("?", 1)[0]
