"""The LTI lines of ``gradekit hub-config --lti``: the hub's login from the LMS, and the course's LTI
service. Kept apart from gradekit.hub.config, which calls :func:`login_lines` in place of its PAM
login and adds :func:`service_entry` to its services."""

from __future__ import annotations

import json

from gradekit.lti.platform import SERVICE, Platform

PORT = 8084


def _lit(value) -> str:
    if isinstance(value, (set, frozenset, tuple)):
        return "{" + ", ".join(json.dumps(v) for v in sorted(value)) + "}"
    return json.dumps(value)


def login_lines(platform: Platform, group: str, https: bool) -> list[str]:
    lines = [
        "# who logs in: people the LMS launches (LTI 1.3), through jupyterhub-ltiauthenticator with gradekit's",
        "# checks (deployment, azp, exp, nonce used once); the username is the claim below; the LMS's teaching",
        "# roles put a person in the instructors group at each launch, and take them out when they no longer teach",
        'c.JupyterHub.authenticator_class = "gradekit.lti.login.GradekitLTI13Authenticator"',
        f"c.LTI13Authenticator.issuer = {_lit(platform.issuer)}",
        f"c.LTI13Authenticator.authorize_url = {_lit(platform.auth_url)}",
        f"c.LTI13Authenticator.jwks_endpoint = {_lit(platform.jwks_url)}",
        f"c.LTI13Authenticator.client_id = {_lit({platform.client_id})}",
        f"c.LTI13Authenticator.username_key = {_lit(platform.username_claim)}",
        f"c.GradekitLTI13Authenticator.deployment_ids = {_lit(set(platform.deployment_ids))}",
        "c.GradekitLTI13Authenticator.course = COURSE",
        f"c.GradekitLTI13Authenticator.instructors_group = {_lit(group)}",
        'c.GradekitLTI13Authenticator.nonce_file = f"{STATE}/lti-nonces.sqlite"',
        "c.Authenticator.allow_all = True  # the LMS says who is in the course: its launch, of this deployment",
        "c.Authenticator.manage_groups = True",
        "c.Authenticator.enable_auth_state = True  # the launch's claims kept (needs $JUPYTERHUB_CRYPT_KEY)",
    ]
    if https:
        lines.append(
            "# the launch is a cross-site POST: the hub's cookies must be SameSite=None (and so Secure) for it\n"
            'c.JupyterHub.tornado_settings = {"cookie_options": {"samesite": "None", "secure": True}}'
        )
    return lines


def service_entry(assignments: list[str], scope: str, port: int = PORT) -> list[str]:
    served = ", ".join(json.dumps(a) for a in assignments)
    return [
        "    {",
        f'        "name": "{SERVICE}",  # LTI: the tool\'s keys, the deep-linking picker, every score to the LMS',
        f'        "url": "http://127.0.0.1:{port}",',
        f'        "command": [GRADEKIT, "--course", COURSE, "lti", "serve", {served}],',
        '        "cwd": COURSE,',
        '        "environment": SERVICE_ENV,',
        f'        "oauth_client_allowed_scopes": [{json.dumps(scope)}],',
        '        "oauth_no_confirm": True,',
        "    },",
    ]
