"""LTI 1.3's claim names, scopes and roles, and what a launch says of a person."""

from __future__ import annotations

from dataclasses import dataclass

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
DEPLOYMENT_ID = LTI + "deployment_id"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
RESOURCE_LINK = LTI + "resource_link"
CUSTOM = LTI + "custom"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DL_CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
CANVAS_SUBMISSION = "https://canvas.instructure.com/lti/submission"

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READ = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_RESULT_READ = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
SCOPES = (SCOPE_LINEITEM, SCOPE_SCORE, SCOPE_NRPS)  # all the tool asks for: no result reads

# the roles that teach: the context roles (short or full) and their sub-roles
_TEACHING = ("Instructor", "TeachingAssistant", "ContentDeveloper", "Administrator", "Mentor")
_LEARNING = ("Learner",)


def _base(role: str) -> str:
    """'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor' or 'Instructor' -> 'Instructor';
    a sub-role ('...membership/Instructor#TeachingAssistant') keeps its sub-role's name."""
    name = role.rsplit("#", 1)[-1] if "#" in role else role.rsplit("/", 1)[-1]
    return name


def _is_context_role(role: str) -> bool:
    return "/membership" in role or "/" not in role


def teaches(roles) -> bool:
    """A context role that teaches (an institution or system role alone does not)."""
    return any(_is_context_role(r) and _base(r) in _TEACHING for r in roles or ())


def learns(roles) -> bool:
    return any(_is_context_role(r) and _base(r) in _LEARNING for r in roles or ()) and not teaches(roles)


@dataclass(frozen=True)
class Member:
    """A person of an LMS course, from a launch or from NRPS."""

    sub: str  # the LMS's user id (the id_token's sub, NRPS's user_id)
    username: str  # the hub username and gradebook id ("" when the rule cannot make one)
    roles: tuple[str, ...]
    name: str = ""
    given_name: str = ""
    family_name: str = ""
    email: str = ""
    status: str = "Active"  # NRPS: Active, Inactive, Deleted

    @property
    def teaches(self) -> bool:
        return teaches(self.roles)

    @property
    def learns(self) -> bool:
        return learns(self.roles)


def username_of(claims: dict, rule: str) -> str:
    """The username ``rule`` (the platform's username_claim) makes of a launch's claims or an NRPS
    member (whose ``user_id`` is the launch's ``sub``), lowercased as JupyterHub does; "" if none."""
    if rule.startswith("custom_"):
        value = (claims.get(CUSTOM) or {}).get(rule[len("custom_") :], "")
    elif rule == "sub":
        value = claims.get("sub") or claims.get("user_id") or ""
    else:
        value = claims.get(rule) or ""
    return str(value).strip().lower()
