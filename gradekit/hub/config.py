"""``gradekit hub-config``: the jupyterhub_config.py of a course on one machine, written, not copied by hand.

What it writes, for a hub whose students are each a Unix account of their own (PAM, local
processes), with every path in full (a hub's services do not search its PATH):

    listening       the hub on an address of the course's choosing (loopback behind a reverse
                    proxy with TLS by default, or TLS of its own), its proxy and API on loopback
    who logs in     the roster's accounts and the instructors (PAM: their Unix passwords)
    instructors     a hub group and role holding the course's instructor scope and access to its
                    services (gradekit.web.auth)
    each server     the student's own account; a private home and umask 077 (nothing a server
                    writes is anyone else's to read); the course's settings folder (students/
                    or instructors/, on JUPYTER_CONFIG_PATH); JupyterLab, or Notebook 7 for the
                    accounts interfaces.csv names (read at each login)
    the services    gradekit serve (feedback seconds after Submit), the grading page and the class
                    report, each with its command, cwd, environment and URL, and the scopes the
                    hub's login gives them

``write`` puts it in the hub's own folder, with students/ and instructors/ (the servers' settings,
readable by every account), interfaces.csv, and state/ (0700: the hub's database and cookie
secret, which jupyterhub writes 0644, stay the hub's).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from gradekit.errors import UsageError

INTERFACES = "interfaces.csv"


@dataclass(frozen=True)
class Plan:
    """What the config says (``gradekit hub-config``'s options)."""

    course: object  # gradekit.course.Course
    assignments: list[str]
    instructors: list[str]
    accounts: list[str]  # the roster's
    folder: Path  # the hub's own folder
    deploy: Path  # make deploy's: the students' venv and the proxy
    gradekit: Path  # the gradekit the services run
    ip: str = "127.0.0.1"
    port: int = 8000
    hub_port: int = 8081
    proxy_api_port: int = 8001
    grade_port: int = 8082
    report_port: int = 8083
    lti_port: int = 8084  # the LTI service's (with --lti)
    public_url: str = ""
    ssl_cert: str = ""
    ssl_key: str = ""
    extra_env: dict[str, str] = field(default_factory=dict)
    lti: object = None  # gradekit.lti.platform.Platform: the hub's login from the LMS (hub-config --lti)

    @property
    def venv_bin(self) -> Path:
        return self.gradekit.parent


def check(plan: Plan) -> None:
    """Every path the config names exists: a service whose command is missing takes the hub down."""
    needed = {
        plan.gradekit: "the gradekit the services run (--gradekit)",
        plan.deploy / "venv" / "bin" / "jupyterhub-singleuser": "the students' servers (make deploy)",
        plan.deploy / "node_modules" / ".bin" / "configurable-http-proxy": "the hub's proxy (make deploy)",
    }
    for path, what in needed.items():
        if not os.access(path, os.X_OK):
            raise UsageError(f"{path} does not exist or cannot be run: {what}")
    if not plan.instructors and plan.lti is None:  # with --lti the LMS's roles say who teaches
        raise UsageError(
            "no instructors: name them with --instructors NAME,... (or set c.Gradekit.staff_group to a Unix "
            "group whose members teach the course)"
        )
    if bool(plan.ssl_cert) != bool(plan.ssl_key):
        raise UsageError("--ssl-cert and --ssl-key go together")


def _lit(value) -> str:
    """A Python literal, with double quotes (sets sorted)."""
    import json

    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(json.dumps(v) for v in sorted(value)) + "}"
    return json.dumps(value, ensure_ascii=False)


def text(plan: Plan) -> str:
    from gradekit.web.auth import instructor_role, instructor_scope

    course = plan.course
    cid: str = course.course_id  # type: ignore[attr-defined]
    root: Path = course.root  # type: ignore[attr-defined]
    scope, role = instructor_scope(cid), instructor_role(cid)
    scheme = "https" if plan.ssl_cert else "http"
    users = sorted(set(plan.accounts) | set(plan.instructors))
    grade = "gradekit-grade"
    served = ", ".join(map(_lit, plan.assignments))
    report = "gradekit-report"
    env = {"PATH": f"{plan.venv_bin}:/usr/bin:/bin", "LANG": "C.UTF-8", **plan.extra_env}
    tls = (
        [f"c.JupyterHub.ssl_cert = {_lit(plan.ssl_cert)}", f"c.JupyterHub.ssl_key = {_lit(plan.ssl_key)}"]
        if plan.ssl_cert
        else [
            "# no TLS here: put a reverse proxy with TLS (nginx, caddy) in front, or give --ssl-cert and --ssl-key",
        ]
    )
    lines = [
        f"# jupyterhub_config.py for {cid}, written by `gradekit hub-config` (run it again after a change:",
        "# students, instructors, assignments). Start the hub as root, in this folder:",
        f"#   cd {plan.folder} && {plan.deploy}/venv/bin/jupyterhub -f jupyterhub_config.py",
        "import csv",
        "import os",
        "import pwd",
        "",
        "c = get_config()  # noqa: F821",
        f"COURSE = {_lit(str(root))}",
        f"HUB = {_lit(str(plan.folder))}  # this folder: the servers' settings (students/, instructors/)",
        "STATE = f\"{HUB}/state\"  # 0700: the hub's database and cookie secret, root's alone",
        f"DEPLOY = {_lit(str(plan.deploy))}  # make deploy: the students' venv and the hub's proxy",
        f"GRADEKIT = {_lit(str(plan.gradekit))}  # the instructor's gradekit, which the services run",
        "",
        "# where the hub listens (people open the first address); its proxy's API and the hub's own, on loopback",
        f'c.JupyterHub.bind_url = "{scheme}://{plan.ip}:{plan.port}"',
        *([f"c.JupyterHub.public_url = {_lit(plan.public_url)}"] if plan.public_url else []),
        *tls,
        f'c.JupyterHub.hub_bind_url = "http://127.0.0.1:{plan.hub_port}"',
        f'c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{plan.proxy_api_port}"',
        'c.ConfigurableHTTPProxy.command = [f"{DEPLOY}/node_modules/.bin/configurable-http-proxy"]',
        'c.ConfigurableHTTPProxy.pid_file = f"{STATE}/jupyterhub-proxy.pid"',
        'c.JupyterHub.db_url = f"sqlite:///{STATE}/jupyterhub.sqlite"',
        'c.JupyterHub.cookie_secret_file = f"{STATE}/jupyterhub_cookie_secret"',
        'c.JupyterHub.pid_file = f"{STATE}/jupyterhub.pid"',
        "",
        *_login(plan, users, role, scheme),
        "",
        "# the course's instructors: a hub group and role; gradekit's services let in those whose login",
        "# carries the role's scope (a hub admin outside the group is not let in)",
        f"INSTRUCTORS = {_lit(set(plan.instructors))}",
        f'c.JupyterHub.custom_scopes = {{{_lit(scope)}: {{"description": "teaches {cid} (gradekit)"}}}}',
        *([] if plan.lti else [f'c.JupyterHub.load_groups = {{{_lit(role)}: {{"users": sorted(INSTRUCTORS)}}}}']),
        "c.JupyterHub.load_roles = [",
        f'    {{"name": {_lit(role)}, "groups": [{_lit(role)}],',
        f'     "scopes": [{_lit(scope)}, "access:services!service={grade}", "access:services!service={report}"'
        + (', "access:services!service=gradekit-lti"' if plan.lti else "")
        + "]},",
        "]",
        "",
        "# each server runs as its own account, writes nothing another account can read (umask 077), in a",
        "# home that is its own (0700, made so at each login), with the course's settings for its kind",
        'c.JupyterHub.spawner_class = "localprocess"',
        'c.Spawner.cmd = [f"{DEPLOY}/venv/bin/jupyterhub-singleuser"]',
        'c.Spawner.environment = {"PATH": f"{DEPLOY}/venv/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}',
        'c.LocalProcessSpawner.popen_kwargs = {"umask": 0o077}',
        "c.Spawner.start_timeout = 90",
        "c.Spawner.http_timeout = 90",
        "",
        "",
        "def interface_of(name):",
        f'    """"notebook" (Notebook 7) or "lab", as {INTERFACES} in this folder says (read at each login)."""',
        "    try:",
        f'        with open(f"{{HUB}}/{INTERFACES}", newline="", encoding="utf-8") as fh:',
        '            rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))',
        "    except OSError:",
        "        rows = []",
        '    chosen = {(r.get("account") or "").strip(): (r.get("interface") or "").strip().lower() for r in rows}',
        '    return "notebook" if chosen.get(name) in ("notebook", "notebook7") else "lab"',
        "",
        "",
        "def pre_spawn_hook(spawner):",
        "    name = spawner.user.name",
        "    account = pwd.getpwnam(name)",
        "    home = os.stat(account.pw_dir)",
        "    if home.st_uid == account.pw_uid and home.st_mode & 0o077:",
        "        os.chmod(account.pw_dir, home.st_mode & 0o700)  # useradd -m makes it 0755 on Debian",
        *([f"    teaches = {_teaches(plan)}"] if plan.lti else []),
        f'    settings = f"{{HUB}}/instructors" if {_who(plan)} else f"{{HUB}}/students"',
        '    spawner.environment = {**spawner.environment, "JUPYTER_CONFIG_PATH": settings}',
        '    spawner.default_url = "/tree" if interface_of(name) == "notebook" else "/lab"',
        f"    if {_who(plan)}:  # Formgrader opens a course only below the server's root: /, opened at home",
        '        spawner.notebook_dir = "/"',
        '        spawner.args = [*spawner.args, f"--ContentsManager.preferred_dir={account.pw_dir}"]',
        "",
        "",
        "c.Spawner.pre_spawn_hook = pre_spawn_hook",
        "",
        "# gradekit's services: the hub starts each with itself and starts it again if it ends; a service",
        "# whose hub died stops by itself, and the next hub's takes over its port and its lock",
        f"SERVICE_ENV = {_lit(env)}",
        "c.JupyterHub.services = [",
        "    {",
        '        "name": "gradekit",  # feedback seconds after Submit',
        f'        "command": [GRADEKIT, "--course", COURSE, "serve", {served}],',
        '        "cwd": COURSE,',
        '        "environment": SERVICE_ENV,',
        "    },",
        "    {",
        f'        "name": "{grade}",  # the grading page, for the instructors',
        f'        "url": "http://127.0.0.1:{plan.grade_port}",',
        f'        "command": [GRADEKIT, "--course", COURSE, "grade", {served}],',
        '        "cwd": COURSE,',
        '        "environment": SERVICE_ENV,',
        f'        "oauth_client_allowed_scopes": [{_lit(scope)}],',
        '        "oauth_no_confirm": True,',
        "    },",
        "    {",
        f'        "name": "{report}",  # the class report, for the instructors',
        f'        "url": "http://127.0.0.1:{plan.report_port}",',
        f'        "command": [GRADEKIT, "--course", COURSE, "report", "--serve", {served}],',
        '        "cwd": COURSE,',
        '        "environment": SERVICE_ENV,',
        f'        "oauth_client_allowed_scopes": [{_lit(scope)}],',
        '        "oauth_no_confirm": True,',
        "    },",
        *_lti_service(plan, scope),
        "]",
        "",
    ]
    return "\n".join(lines)


def _login(plan: Plan, users: list[str], role: str, scheme: str) -> list[str]:
    """Who logs in: PAM with the roster's accounts, or the LMS's launches (--lti: gradekit.lti.hubconf)."""
    if plan.lti is not None:  # LTI (issue 39): the login block is gradekit.lti's
        from gradekit.lti.hubconf import login_lines

        return login_lines(plan.lti, role, scheme == "https" or plan.public_url.startswith("https"))  # type: ignore[arg-type]
    return [
        "# who logs in: the roster's accounts and the instructors, with their Unix passwords",
        'c.JupyterHub.authenticator_class = "pam"',
        f"c.Authenticator.allowed_users = {_lit(set(users))}",
    ]


def _who(plan: Plan) -> str:
    return "teaches" if plan.lti else "name in INSTRUCTORS"


def _teaches(plan: Plan) -> str:
    """Who gets the instructors' settings: the named instructors, and with --lti whoever the LMS's roles
    put in the instructors group at their launch."""
    if plan.lti is None:
        return "name in INSTRUCTORS"
    from gradekit.web.auth import instructor_role

    group = instructor_role(plan.course.course_id)  # type: ignore[attr-defined]
    return f"name in INSTRUCTORS or any(g.name == {_lit(group)} for g in spawner.user.groups)"


def _lti_service(plan: Plan, scope: str) -> list[str]:
    if plan.lti is None:
        return []
    from gradekit.lti.hubconf import service_entry

    return service_entry(plan.assignments, scope, plan.lti_port)


def instructors_config(course, exchange: str) -> str:
    """The nbgrader_config.py of the instructors' servers: Formgrader opens the course."""
    cid = course.course_id
    factory = dict((course.config or {}).get("ExchangeFactory", {}))  # the course's exchange classes
    return "\n".join(
        [
            f"# nbgrader_config.py for the instructors of {cid} (written by `gradekit hub-config`): Formgrader",
            "# and the instructor's nbgrader open the course from any folder",
            "c = get_config()  # noqa: F821",
            f"c.CourseDirectory.root = {_lit(str(course.root))}",
            f"c.CourseDirectory.course_id = {_lit(cid)}",
            f"c.CourseDirectory.db_url = {_lit(course.db_url)}",
            f"c.Exchange.root = {_lit(exchange)}",
            *(f"c.ExchangeFactory.{step} = {_lit(str(cls))}" for step, cls in factory.items()),
            "",
        ]
    )


def write(plan: Plan, config: str) -> list[Path]:
    """The hub's folder: jupyterhub_config.py, instructors/, interfaces.csv (kept if there), state/; the
    students' settings folder (students/) is `gradekit student-config --dir`'s."""
    from gradekit.exchange.filesystem.layout import exchange_root

    folder = plan.folder
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)  # the servers read students/ or instructors/ in it
    (folder / "state").mkdir(exist_ok=True)
    os.chmod(folder / "state", 0o700)
    out = [folder / "state"]
    target = folder / "jupyterhub_config.py"
    target.write_text(config)
    os.chmod(target, 0o600)
    out.append(target)
    instructors = folder / "instructors"
    instructors.mkdir(exist_ok=True)
    os.chmod(instructors, 0o755)
    (instructors / "nbgrader_config.py").write_text(instructors_config(plan.course, str(exchange_root(plan.course))))
    os.chmod(instructors / "nbgrader_config.py", 0o644)
    out.append(instructors / "nbgrader_config.py")
    interfaces = folder / INTERFACES
    if not interfaces.exists():
        interfaces.write_text(
            "# which accounts get Notebook 7 instead of JupyterLab (read at each login): one row each\n"
            "account,interface\n"
        )
        os.chmod(interfaces, 0o600)
    out.append(interfaces)
    return out
