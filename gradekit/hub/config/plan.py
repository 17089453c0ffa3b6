"""What a hub's config says: ``gradekit hub-config``'s options, as one frozen value, and its checks."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from gradekit.errors import UsageError

EXCHANGE = "gradekit-exchange"  # the hub exchange's service name (gradekit.exchange.hub.wire.SERVICE)
SERVE, GRADE, REPORT = "gradekit", "gradekit-grade", "gradekit-report"  # the course's services


@dataclass(frozen=True)
class Plan:
    """One hub's config (see gradekit.hub.config): the course, who, where, and the shape it takes."""

    course: object  # gradekit.course.Course
    assignments: list[str]
    instructors: list[str]
    accounts: list[str]  # the roster's (their hub names)
    folder: Path  # the hub's own folder
    deploy: Path  # make deploy's: the students' venv and the proxy
    gradekit: Path  # the gradekit the course's services run
    shape: str = "accounts"  # gradekit.hub.config.SHAPES
    login: str = ""  # gradekit.hub.config.logins.LOGINS; "" is the shape's own
    ip: str = "127.0.0.1"
    port: int = 8000
    hub_port: int = 8081
    proxy_api_port: int = 8001
    grade_port: int = 8082
    report_port: int = 8083
    exchange_port: int = 10101
    lti_port: int = 8084  # the LTI service's (--login lti)
    public_url: str = ""
    ssl_cert: str = ""
    ssl_key: str = ""
    account: str = "jovyan"  # one-account: the Unix account every server runs as
    homes: Path = Path("/srv/jupyterhub-homes")  # one-account: the students' homes
    image: str = "registry.example.edu/course/student:2026.1"  # docker, kubernetes: the students' image
    course_host: str = ""  # docker, kubernetes: where the hub reaches the course's pages (the course's machine)
    extra_env: dict[str, str] = field(default_factory=dict)
    lti: object = None  # gradekit.lti.platform.Platform: the hub's login from the LMS (--login lti)
    exchange_args: tuple[str, ...] = ()  # the hub exchange's limits, as gradekit hub-exchange's options
    serve: bool = True  # gradekit serve a service of the hub (False: it runs elsewhere, or batches grade)

    @property
    def course_id(self) -> str:
        return str(self.course.course_id)  # type: ignore[attr-defined]

    @property
    def root(self) -> Path:
        return Path(self.course.root)  # type: ignore[attr-defined]

    @property
    def venv_bin(self) -> Path:
        return self.gradekit.parent

    @property
    def scheme(self) -> str:
        return "https" if self.ssl_cert else "http"

    @property
    def users(self) -> list[str]:
        """Everyone the hub lets in: the roster's accounts and the instructors."""
        return sorted(set(self.accounts) | set(self.instructors))

    @property
    def exchange_url(self) -> str:
        """Where the students' servers (and the instructors') reach the hub exchange: through the hub's
        proxy, as every request of theirs goes (on one machine, on loopback)."""
        if self.ssl_cert and self.public_url:
            return self.public_url.rstrip("/") + f"/services/{EXCHANGE}/"
        host = "127.0.0.1" if self.ip in ("0.0.0.0", "", "::") else self.ip
        return f"{self.scheme}://{host}:{self.port}/services/{EXCHANGE}/"


def check(plan: Plan, needed: dict[Path, str]) -> None:
    """Every path the config names exists (a service whose command is missing takes the hub down),
    instructors are named, and TLS comes whole."""
    for path, what in needed.items():
        if not os.access(path, os.X_OK):
            raise UsageError(f"{path} does not exist or cannot be run: {what}")
    if not plan.instructors and plan.login != "lti":  # with LTI the LMS's roles say who teaches
        raise UsageError(
            "no instructors: name them with --instructors NAME,... (or set c.Gradekit.staff_group to a Unix "
            "group whose members teach the course)"
        )
    if bool(plan.ssl_cert) != bool(plan.ssl_key):
        raise UsageError("--ssl-cert and --ssl-key go together")


def lit(value) -> str:
    """A Python literal, with double quotes (sets sorted)."""
    import json

    if isinstance(value, (set, frozenset)):
        if not value:
            return "set()"  # "{}" would be a dict
        return "{" + ", ".join(json.dumps(v) for v in sorted(value)) + "}"
    return json.dumps(value, ensure_ascii=False)
