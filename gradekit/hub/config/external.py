"""The course's services run beside a hub that is not on the course's machine (Docker, Kubernetes).

There the hub (in its container or pod) does not see the course, so it cannot start gradekit serve,
the grading page or the class report: they run on the course's machine (systemd), and the hub
knows them as external services -- each with a token of its own and, for the two pages, the
address the hub reaches them at (``--course-host``) and their OAuth callback. hub-config writes,
beside the hub's config, ``course-services/``:

    <service>.env                       the service's environment: the hub's API, its token, its
                                        prefix, where it listens (0600)
    gradekit-service@.service           a systemd template unit: gradekit-service@gradekit-grade ...

The tokens are made once and kept in the hub's state/ (service-<name>.token), so that writing the
config again changes none of them.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from gradekit.hub.config.plan import GRADE, REPORT, SERVE, Plan

PAGES = {GRADE: "grade_port", REPORT: "report_port"}


UNMADE = "<made by gradekit hub-config --write>"


def token(plan: Plan, service: str) -> str:
    """The service's token, kept in the hub's state/ (until ``make_tokens`` made it: a placeholder)."""
    try:
        return (plan.folder / "state" / f"service-{service}.token").read_text().strip()
    except OSError:
        return UNMADE


def make_tokens(plan: Plan, services: list[str]) -> None:
    """A token for each of ``services`` that has none in the hub's state/ (0600)."""
    for service in services:
        path = plan.folder / "state" / f"service-{service}.token"
        if path.exists():
            continue
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32) + "\n")


def page_url(plan: Plan, service: str) -> str:
    return f"http://{plan.course_host}:{getattr(plan, PAGES[service])}"


def files(plan: Plan, hub_api: str, command: dict[str, list[str]]) -> dict[str, tuple[str, int]]:
    """course-services/: an environment file for each page, and the systemd unit that runs them."""
    out: dict[str, tuple[str, int]] = {}
    for service in PAGES:
        prefix = f"/services/{service}/"
        env = {
            "JUPYTERHUB_API_URL": hub_api,
            "JUPYTERHUB_API_TOKEN": token(plan, service),
            "JUPYTERHUB_CLIENT_ID": f"service-{service}",
            "JUPYTERHUB_SERVICE_PREFIX": prefix,
            "JUPYTERHUB_SERVICE_URL": f"http://0.0.0.0:{getattr(plan, PAGES[service])}",
            "JUPYTERHUB_OAUTH_CALLBACK_URL": f"{prefix}oauth_callback",
            "JUPYTERHUB_PUBLIC_URL": plan.public_url.rstrip("/") + prefix if plan.public_url else "",
            "GRADEKIT_COMMAND": " ".join(command[service]),
        }
        text = "".join(f"{k}={v}\n" for k, v in env.items())
        head = f"# {service} on the course's machine (gradekit hub-config)\n"
        out[f"course-services/{service}.env"] = (head + text, 0o600)
    unit = "\n".join(
        [
            "# gradekit's pages for the hub, on the course's machine:",
            "#   systemctl enable --now gradekit-service@gradekit-grade gradekit-service@gradekit-report",
            "# (gradekit serve is deploy/gradekit-serve.service, with the course's token)",
            "[Unit]",
            "Description=gradekit %i for the hub",
            "After=network-online.target",
            "",
            "[Service]",
            f"EnvironmentFile={plan.folder}/course-services/%i.env",
            f"WorkingDirectory={plan.root}",
            "ExecStart=/bin/sh -c 'exec $GRADEKIT_COMMAND'",
            "Restart=always",
            "RestartPreventExitStatus=2 3",
            "",
            "[Install]",
            "WantedBy=multi-user.target",
            "",
        ]
    )
    out["course-services/gradekit-service@.service"] = (unit, 0o644)
    return out


def commands(plan: Plan) -> dict[str, list[str]]:
    g, course = str(plan.gradekit), ["--course", str(plan.root)]
    return {
        SERVE: [g, *course, "serve", *plan.assignments],
        GRADE: [g, *course, "grade", *plan.assignments],
        REPORT: [g, *course, "report", "--serve", *plan.assignments],
    }


__all__ = ["Path", "commands", "files", "make_tokens", "page_url", "token"]
