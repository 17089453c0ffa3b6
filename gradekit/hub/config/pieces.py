"""The parts every jupyterhub_config.py that gradekit writes shares, each a list of lines.

head        the header: what the file is, how the hub is started, the paths it names
listen      where the hub, its proxy's API and its own API listen; its database and cookie secret
instructors the course's instructor scope, the hub group and role holding it (and, on the hub
            exchange, the course's service "gradekit" and the students' use of the exchange)
servers     the hook that gives each server the course's settings for its kind (students/ or
            instructors/) and its interface (interfaces.csv: Notebook 7 or JupyterLab)
services    gradekit serve, the grading page and the class report, each with its command, cwd,
            environment and URL; on the hub exchange, the exchange itself (hidden from the
            students' Services menu) and the course's token
"""

from __future__ import annotations

from gradekit.hub.config.plan import EXCHANGE, GRADE, REPORT, SERVE, Plan, lit

INTERFACES = "interfaces.csv"
TOKEN_COPY = "gradekit-token"  # in the hub's state/: the course's token, copied there by hub-config --write


def head(plan: Plan, how: str, imports: list[str]) -> list[str]:
    return [
        f"# jupyterhub_config.py for {plan.course_id}, written by `gradekit hub-config{how}` (run it again",
        "# after a change: students, instructors, assignments). Start the hub as root, in this folder:",
        f"#   cd {plan.folder} && {plan.deploy}/venv/bin/jupyterhub -f jupyterhub_config.py",
        *(f"import {module}" for module in imports),
        "",
        "c = get_config()  # noqa: F821",
        f"COURSE = {lit(str(plan.root))}",
        f"HUB = {lit(str(plan.folder))}  # this folder: the servers' settings (students/, instructors/)",
        "STATE = f\"{HUB}/state\"  # 0700: the hub's database and cookie secret, root's alone",
        f"DEPLOY = {lit(str(plan.deploy))}  # make deploy: the students' venv and the hub's proxy",
        f"GRADEKIT = {lit(str(plan.gradekit))}  # the instructor's gradekit, which the services run",
    ]


def listen(plan: Plan) -> list[str]:
    tls = (
        [f"c.JupyterHub.ssl_cert = {lit(plan.ssl_cert)}", f"c.JupyterHub.ssl_key = {lit(plan.ssl_key)}"]
        if plan.ssl_cert
        else ["# no TLS here: put a reverse proxy with TLS (nginx, caddy) in front, or give --ssl-cert and --ssl-key"]
    )
    return [
        "# where the hub listens (people open the first address); its proxy's API and the hub's own, on loopback",
        f'c.JupyterHub.bind_url = "{plan.scheme}://{plan.ip}:{plan.port}"',
        *([f"c.JupyterHub.public_url = {lit(plan.public_url)}"] if plan.public_url else []),
        *tls,
        f'c.JupyterHub.hub_bind_url = "http://127.0.0.1:{plan.hub_port}"',
        f'c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{plan.proxy_api_port}"',
        'c.ConfigurableHTTPProxy.command = [f"{DEPLOY}/node_modules/.bin/configurable-http-proxy"]',
        'c.ConfigurableHTTPProxy.pid_file = f"{STATE}/jupyterhub-proxy.pid"',
        'c.JupyterHub.db_url = f"sqlite:///{STATE}/jupyterhub.sqlite"',
        'c.JupyterHub.cookie_secret_file = f"{STATE}/jupyterhub_cookie_secret"',
        'c.JupyterHub.pid_file = f"{STATE}/jupyterhub.pid"',
    ]


def wrapped(items: list[str], head: str, width: int = 110) -> list[str]:
    """``head`` and a list literal of ``items``, broken into lines of at most ``width`` characters."""
    lines, line = [], head + "["
    for i, item in enumerate(items):
        piece = lit(item) + (", " if i < len(items) - 1 else "]")
        if len(line) + len(piece) > width and not line.endswith("["):
            lines.append(line.rstrip())
            line = " " * (len(head) + 1)
        line += piece
    return [*lines, line]


def instructors(plan: Plan, hub_exchange: bool, login) -> list[str]:
    """The instructors' scope, group and role (``login``: gradekit.hub.config.logins.Login)."""
    from gradekit.web.auth import instructor_role, instructor_scope

    cid = plan.course_id
    scope, role = instructor_scope(cid), instructor_role(cid)
    scopes = [scope, f"access:services!service={GRADE}", f"access:services!service={REPORT}", *login.scopes()]
    lines = [
        "# the course's instructors: a hub group and role; gradekit's services let in those whose login",
        "# carries the role's scope (a hub admin outside the group is not let in)",
        f"INSTRUCTORS = {lit(set(plan.instructors))}",
        f'c.JupyterHub.custom_scopes = {{{lit(scope)}: {{"description": "teaches {cid} (gradekit)"}}}}',
        *([] if login.groups else [f'c.JupyterHub.load_groups = {{{lit(role)}: {{"users": sorted(INSTRUCTORS)}}}}']),
        "c.JupyterHub.load_roles = [",
    ]
    if not hub_exchange:
        *first, last = wrapped(scopes, '     "scopes": ')
        return [*lines, f'    {{"name": {lit(role)}, "groups": [{lit(role)}],', *first, last + "},", "]"]
    exchange = f"access:services!service={EXCHANGE}"
    return [
        *lines,
        f'    # the instructors, and the course\'s own token (its service "{SERVE}")',
        f'    {{"name": {lit(role)}, "groups": [{lit(role)}], "services": [{lit(SERVE)}],',
        *wrapped([*scopes, exchange], '     "scopes": ')[:-1],
        wrapped([*scopes, exchange], '     "scopes": ')[-1] + "},",
        "    # every student (and instructor) may use the hub exchange, for themselves alone",
        f'    {{"name": "user", "scopes": ["self", {lit(exchange)}]}},',
        "]",
        "# ... and the token each server gets carries it (a token holds only what both allow)",
        *wrapped(["users:activity!user", "access:servers!server", exchange], "c.Spawner.server_token_scopes = "),
    ]


def teaches(plan: Plan, login) -> list[str]:
    """In the spawner's hook: ``teaches``, whether the server's user is an instructor -- named, or (a login
    that manages the groups, LTI) put in the instructors' group by their launch."""
    from gradekit.web.auth import instructor_role

    if not login.groups:
        return ["    teaches = name in INSTRUCTORS"]
    group = instructor_role(plan.course_id)
    return [f"    teaches = name in INSTRUCTORS or any(g.name == {lit(group)} for g in spawner.user.groups)"]


def local_servers(umask_note: str = "") -> list[str]:
    """Each server a local process of make deploy's venv, writing with umask 077, given the hub's time."""
    return [
        'c.Spawner.cmd = [f"{DEPLOY}/venv/bin/jupyterhub-singleuser"]',
        'c.Spawner.environment = {"PATH": f"{DEPLOY}/venv/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}',
        'c.LocalProcessSpawner.popen_kwargs = {"umask": 0o077}' + umask_note,
        "c.Spawner.start_timeout = 90",
        "c.Spawner.http_timeout = 90",
    ]


def interface_of() -> list[str]:
    return [
        "def interface_of(name):",
        f'    """"notebook" (Notebook 7) or "lab", as {INTERFACES} in this folder says (read at each login)."""',
        "    try:",
        f'        with open(f"{{HUB}}/{INTERFACES}", newline="", encoding="utf-8") as fh:',
        '            rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))',
        "    except OSError:",
        "        rows = []",
        '    chosen = {(r.get("account") or "").strip(): (r.get("interface") or "").strip().lower() for r in rows}',
        '    return "notebook" if chosen.get(name) in ("notebook", "notebook7") else "lab"',
    ]


def _service(
    name: str, comment: str, command: str, url: str = "", oauth: str = "", extra: tuple[str, ...] = ()
) -> list[str]:
    return [
        "    {",
        f'        "name": "{name}",  # {comment}',
        *([f'        "url": "{url}",'] if url else []),
        f'        "command": [GRADEKIT, {command}],',
        '        "cwd": COURSE,',
        '        "environment": SERVICE_ENV,',
        *(
            [f'        "oauth_client_allowed_scopes": [{lit(oauth)}],', '        "oauth_no_confirm": True,']
            if oauth
            else []
        ),
        *extra,
        "    },",
    ]


def services(plan: Plan, hub_exchange: bool, login) -> list[str]:
    """The course's services, the hub exchange's first where the course is on it."""
    from gradekit.web.auth import instructor_scope

    scope = instructor_scope(plan.course_id)
    served = ", ".join(map(lit, plan.assignments))
    env = {"PATH": f"{plan.venv_bin}:/usr/bin:/bin", "LANG": "C.UTF-8", **plan.extra_env}
    course = '"--course", COURSE, '
    exchange: list[str] = []
    token: tuple[str, ...] = ()
    if hub_exchange:
        exchange = [
            "    {",
            f'        "name": "{EXCHANGE}",  # the hub exchange: hand-ins known by their hub login',
            f'        "url": "http://127.0.0.1:{plan.exchange_port}",',
            f'        "command": [GRADEKIT, "hub-exchange", "--course-id", {lit(plan.course_id)}, '
            '"--store", f"{STATE}/exchange"' + "".join(f", {lit(a)}" for a in plan.exchange_args) + "],",
            '        "environment": SERVICE_ENV,',
            '        "display": False,  # not in the students\' Services menu: their servers call it, they do not',
            "    },",
        ]
        token = (f'        "api_token": COURSE_TOKEN,  # the course\'s: its instructors\' role holds "{SERVE}"',)
    return [
        "# gradekit's services: the hub starts each with itself and starts it again if it ends; a service",
        "# whose hub died stops by itself, and the next hub's takes over its port and its lock; each waits",
        "# for what it needs (the proxy's route, the exchange) as long as it takes",
        f"SERVICE_ENV = {lit(env)}",
        *(
            [
                f'with open(f"{{STATE}}/{TOKEN_COPY}") as fh:  # the course\'s .gradekit/hub-token, copied by '
                "hub-config --write",
                "    COURSE_TOKEN = fh.read().strip()",
            ]
            if hub_exchange
            else []
        ),
        "c.JupyterHub.services = [",
        *exchange,
        *(
            _service(SERVE, "feedback seconds after Submit", f'{course}"serve", {served}', extra=token)
            if plan.serve
            else [f'    {{"name": "{SERVE}", "api_token": COURSE_TOKEN}},  # gradekit serve runs elsewhere']
            if hub_exchange
            else []
        ),
        *_service(
            GRADE,
            "the grading page, for the instructors",
            f'{course}"grade", {served}',
            f"http://127.0.0.1:{plan.grade_port}",
            scope,
        ),
        *_service(
            REPORT,
            "the class report, for the instructors",
            f'{course}"report", "--serve", {served}',
            f"http://127.0.0.1:{plan.report_port}",
            scope,
        ),
        *login.services(plan),
        "]",
    ]
