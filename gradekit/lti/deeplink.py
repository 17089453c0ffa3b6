"""Deep linking: an instructor picks an assignment in the LMS; the tool answers with a link to it.

The line item is made (or found) by the tool through AGS before the answer goes, by resource id and
tag (:func:`gradekit.lti.sender.lineitem`), and the link carries no ``lineItem`` of its own: a link
made twice, or a picker submitted twice, is one line item (a ``lineItem`` in the answer would have the
LMS make one per link). The answer is pylti1p3next's DeepLink message, with its ``data: null`` left
out when the request had no data, signed with the tool's current key, and posted to
``deep_link_return_url`` by a form whose values are escaped (its own form is not).
"""

from __future__ import annotations

import html

import jwt

from gradekit.lti import claims
from gradekit.lti.keys import current
from gradekit.lti.launches import record
from gradekit.lti.sender import lineitem


def answer(
    course, platform, connector, request: dict, assignment: str, title: str = "", username: str = ""
) -> tuple[str, str]:
    """(the LMS's return URL, the signed LtiDeepLinkingResponse) for ``assignment``; its line item made."""
    from pylti1p3.deep_link import DeepLink
    from pylti1p3.deep_link_resource import DeepLinkResource

    from gradekit.lti.services import tool_registration

    settings = request.get(claims.DL_SETTINGS) or {}
    key = record(course, request, username)
    if key is not None:
        lineitem(course, connector, key, assignment, label=title or assignment)
    signing = current(course)
    registration = tool_registration(course, platform)
    resource = (
        DeepLinkResource()
        .set_title(title or assignment)
        .set_url(platform.urls.launch)
        .set_custom_params({"assignment": assignment})
    )
    deployment = str(request.get(claims.DEPLOYMENT_ID, ""))
    message = DeepLink(registration, deployment, settings).get_message_jwt([resource])  # type: ignore[arg-type]
    if settings.get("data") is None:
        message.pop(claims.DL_DATA, None)  # pylti1p3next writes data: null
    token = jwt.encode(message, signing.pem, algorithm="RS256", headers={"kid": signing.kid})
    return str(settings.get("deep_link_return_url", "")), token


def form(return_url: str, token: str) -> str:
    """The page that posts the answer to the LMS (values escaped)."""
    return (
        "<!doctype html><html><body><form id='gk-deep-link' method='post' action='"
        + html.escape(return_url, quote=True)
        + "'><input type='hidden' name='JWT' value='"
        + html.escape(token, quote=True)
        + "'><noscript><button>Add to the course</button></noscript></form>"
        "<script>document.getElementById('gk-deep-link').submit()</script></body></html>"
    )
