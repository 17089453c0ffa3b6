"""What each LMS asks for to register the tool, from the hub's public URL.

canvas       the JSON of a Developer Key's "Paste JSON" (LTI 1.3): URLs, scopes, placements
             (course navigation, and assignment selection for deep linking), custom username
moodle       External tool, "LTI 1.3": tool URL, initiate login URL, redirection URI(s), public
             keyset URL, deep linking URL, services (AGS, NRPS)
brightspace  LTI Advantage tool registration: domain, redirect URLs, OpenID Connect login URL,
             target link URI, keyset URL, extensions (AGS, NRPS, deep linking)
blackboard   a registered LTI 1.3 tool (developer portal): domain, login initiation URL, tool
             redirect URL(s), tool JWKS URL, signing algorithm
other        any other LTI 1.3 platform (Sakai, Schoology, a test LMS): the spec's names for the same
"""

from __future__ import annotations

from gradekit.errors import UsageError
from gradekit.lti import claims
from gradekit.lti.platform import ToolURLs

LMSES = ("canvas", "moodle", "brightspace", "blackboard", "other")


def canvas(urls: ToolURLs, title: str, username_claim: str) -> dict:
    custom = {"username": "$Canvas.user.loginId"} if username_claim.startswith("custom_") else {}
    return {
        "title": title,
        "description": f"{title}: notebooks graded by gradekit, scores sent to the gradebook",
        "oidc_initiation_url": urls.login,
        "target_link_uri": urls.launch,
        "public_jwk_url": urls.jwks,
        "redirect_uris": [urls.redirect],
        "scopes": list(claims.SCOPES),
        "custom_fields": custom,
        "extensions": [
            {
                "platform": "canvas.instructure.com",
                "domain": urls.domain,
                "privacy_level": "public",
                "settings": {
                    "placements": [
                        {
                            "placement": "course_navigation",
                            "message_type": "LtiResourceLinkRequest",
                            "target_link_uri": urls.launch,
                            "windowTarget": "_blank",
                            "default": "enabled",
                        },
                        {
                            "placement": "assignment_selection",
                            "message_type": "LtiDeepLinkingRequest",
                            "target_link_uri": urls.deep_link,
                        },
                        {
                            "placement": "link_selection",
                            "message_type": "LtiDeepLinkingRequest",
                            "target_link_uri": urls.deep_link,
                        },
                    ]
                },
            }
        ],
    }


def fields(lms: str, urls: ToolURLs, title: str, username_claim: str) -> dict:
    """The registration data of ``lms``: Canvas's JSON, or the form fields of the others."""
    if lms == "canvas":
        return canvas(urls, title, username_claim)
    common = {
        "Tool name": title,
        "Tool URL / target link URI": urls.launch,
        "Initiate login URL": urls.login,
        "Redirection URI(s)": urls.redirect,
        "Public keyset (JWKS) URL": urls.jwks,
        "Deep linking (content selection) URL": urls.deep_link,
    }
    if lms == "moodle":
        return {
            **common,
            "LTI version": "LTI 1.3",
            "Public key type": "Keyset URL",
            "Supports Deep Linking (Content-Item Message)": "yes",
            "IMS LTI Assignment and Grade Services": "Use this service for grade sync and column management",
            "IMS LTI Names and Role Provisioning": "Use this service to retrieve members' information",
            "Share launcher's name with tool": "Always",
            "Share launcher's email with tool": "Always",
            "Custom parameters": "username=$User.username" if username_claim.startswith("custom_") else "",
        }
    if lms == "brightspace":
        return {
            **common,
            "Domain": f"https://{urls.domain}",
            "Extensions": "Assignment and Grade Services, Deep Linking, Names and Role Provisioning Services",
            "Roles": "Send Institution Role; give the learner role 'Can be graded' "
            "(scores for other roles are refused)",
            "Substitution parameters": "Send user name and email",
            "Custom parameters": "username={UserName}" if username_claim.startswith("custom_") else "",
        }
    if lms == "blackboard":
        return {
            **common,
            "Domain(s)": urls.domain,
            "Tool Redirect URL(s)": urls.redirect,
            "Signing algorithm": "RS256",
            "Custom parameters": "username=@X@user.id@X@" if username_claim.startswith("custom_") else "",
            "Institution policies": "send user name, role in course and email; grade service: allow",
        }
    if lms == "other":
        return {
            **common,
            "Services": "Assignment and Grade Services (line items, scores), Names and Role Provisioning",
            "Scopes": " ".join(claims.SCOPES),
            "Signing algorithm": "RS256",
            "Custom parameters": "username=<the platform's login id>" if username_claim.startswith("custom_") else "",
        }
    raise UsageError(f"--lms must be one of {', '.join(LMSES)}, not {lms!r}")
