"""``gradekit doctor``: the hub, and the hub exchange.

the hub         given its jupyterhub_config.py: the hub's database and cookie secret are the
                hub's alone, the students' servers write with a private umask, and a hub on
                every interface has TLS
the hub exchange on the hub exchange (c.Gradekit.exchange = "hub") instead of the exchange's folders:
                the service answers, the course's token carries the instructor scope, and the account
                the students' servers run as (--student-account) reads neither the service's store nor
                the course's files (its private ones, and every student's release/, submitted/,
                autograded/ and feedback/); given the hub's config, the students' server tokens may
                use the service (the spawner's server_token_scopes and the role the students hold)
"""

from __future__ import annotations

import pwd
import stat
from pathlib import Path

from gradekit.doctor.access import Problem, account_reads, accounts, others_can, reachable


def _hub_config(config: Path):
    """The hub's config as traitlets loads it, or the one line why it does not load."""
    import logging

    from gradekit.course import _traitlets_config

    loader = _traitlets_config("loader")
    try:
        log = logging.getLogger("gradekit")
        return loader.PyFileConfigLoader(config.name, path=str(config.parent), log=log).load_config(), None
    except Exception as exc:  # noqa: BLE001 - the admin's config: one line
        line = str(exc).splitlines()[0] if str(exc) else repr(exc)
        return None, Problem(f"{config} does not load: {line}", f"fix {config}")


def hub_problems(config: Path) -> list[Problem]:
    """The hub's own files (its database, its cookie secret) and its servers' umask, from its config."""
    c, problem = _hub_config(config)
    if c is None:
        return [problem] if problem else []
    hub = c.get("JupyterHub", {})
    folder = config.parent
    out = []
    db_url = str(hub.get("db_url", "") or "sqlite:///jupyterhub.sqlite")
    files = [Path(str(hub.get("cookie_secret_file", "") or "jupyterhub_cookie_secret"))]
    if db_url.startswith("sqlite:///"):
        files.append(Path(db_url.removeprefix("sqlite:///")))
    for path in files:
        path = path if path.is_absolute() else folder / path
        if path.exists() and reachable(path) and others_can(path, stat.S_IROTH):
            out.append(
                Problem(
                    f"the hub's {path.name} ({path}) can be read by every account (the hub's users, their tokens)",
                    f"chmod 0700 {path.parent}   # gradekit hub-config --write keeps them in a 0700 state/",
                )
            )
    umask = (c.get("LocalProcessSpawner", {}).get("popen_kwargs", {}) or {}).get("umask")
    spawner = str(getattr(hub.get("spawner_class", ""), "__name__", hub.get("spawner_class", ""))).lower()
    in_containers = "docker" in spawner or "kube" in spawner  # a container of its own each: no umask shared
    if not in_containers and (not isinstance(umask, int) or umask & 0o077 != 0o077):
        out.append(
            Problem(
                "the students' servers write files other accounts can read (no umask 077 in the spawner's "
                "popen_kwargs): a notebook they duplicate, their Lab workspace",
                'c.LocalProcessSpawner.popen_kwargs = {"umask": 0o077} (gradekit hub-config writes it)',
            )
        )
    out += _users_without_accounts(c, spawner)
    bind = str(hub.get("bind_url", "") or "")
    ip = str(hub.get("ip", "") or "")
    everywhere = (bind and ("://0.0.0.0" in bind or "://:" in bind)) or (not bind and ip in ("", "0.0.0.0"))
    if everywhere and not hub.get("ssl_cert"):
        out.append(
            Problem(
                "the hub listens on every interface without TLS: passwords cross the network in clear",
                "listen on 127.0.0.1 behind a reverse proxy with TLS, or give c.JupyterHub.ssl_cert and ssl_key "
                "(gradekit hub-config --ip, --ssl-cert, --ssl-key)",
            )
        )
    return out


def _users_without_accounts(c, spawner: str) -> list[Problem]:
    """On a hub whose servers run as each user's own Unix account (the local process spawner, PAM): the
    allowed users with no account here (JupyterHub logs an error for each at every start, and they cannot
    log in)."""
    import pwd

    if spawner and "localprocess" not in spawner and "sudo" not in spawner:
        return []  # servers in containers, or as one shared account: hub users need no Unix account
    allowed = sorted(str(u) for u in (c.get("Authenticator", {}).get("allowed_users") or ()))
    missing = []
    for user in allowed:
        try:
            pwd.getpwnam(user)
        except KeyError:
            missing.append(user)
    if not missing:
        return []
    shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
    return [
        Problem(
            f"{len(missing)} allowed user(s) of the hub have no Unix account here: {shown} (they cannot log in, "
            "and the hub logs an error for each at start)",
            "useradd -m -K HOME_MODE=0700 NAME for each (docs/admin/jupyterhub.md, step 2), or take them out of "
            "roster.csv and run gradekit hub-config --write again",
        )
    ]


def students_python(config: Path) -> Path | None:
    """The Python of the students' servers a hub config names (its spawner's command, in a venv's bin/)."""
    c, _problem = _hub_config(config)
    if c is None:
        return None
    cmd = c.get("Spawner", {}).get("cmd") or c.get("LocalProcessSpawner", {}).get("cmd") or []
    if isinstance(cmd, str):
        cmd = [cmd]
    if not cmd or not str(cmd[0]).startswith("/"):
        return None
    python = Path(str(cmd[0])).parent / "python"
    return python if python.exists() else None


def _grants(scopes, service: str) -> bool:
    """Whether a list of hub scopes lets its holder use the service ``service``."""
    return any(str(x) in (f"access:services!service={service}", "access:services") for x in scopes or ())


def hub_exchange_config_problems(course, config: Path) -> list[Problem]:
    """The hub's config lets every student's server token reach the hub exchange: the service is one of
    the hub's, the tokens the spawner gives the servers carry its access scope, and the students hold
    it (the ``user`` role, or a role of a group). A token carries only what both allow."""
    from urllib.parse import urlparse

    from gradekit.exchange.hub.course import settings_of
    from gradekit.exchange.hub.wire import SERVICE

    c, problem = _hub_config(config)
    if c is None:
        return []  # hub_problems says why
    path = urlparse(str(settings_of(course).get("url") or "")).path
    parts = [p for p in path.split("/") if p]
    service = parts[parts.index("services") + 1] if "services" in parts[:-1] else SERVICE
    scope = f"access:services!service={service}"
    hub = c.get("JupyterHub", {})
    out = []
    names = [str(entry.get("name", "")) for entry in hub.get("services", []) or [] if isinstance(entry, dict)]
    if service not in names:
        out.append(
            Problem(
                f"{config} has no service {service!r} (c.JupyterHub.services: {', '.join(names) or 'none'}): the "
                "course's c.GradekitHubExchange.url names it",
                f'an entry {{"name": "{service}", "url": ...}} in c.JupyterHub.services '
                "(docs/admin/kubernetes-docker.md)",
            )
        )
    spawners = [section for name, section in c.items() if name.endswith("Spawner") and hasattr(section, "get")]
    token_scopes = [x for section in spawners for x in (section.get("server_token_scopes") or [])]
    if not _grants(token_scopes, service):
        out.append(
            Problem(
                f"the token each student's server gets cannot use the hub exchange: {scope} is not in "
                "c.Spawner.server_token_scopes (the students' fetch, submit and list are refused)",
                f'c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server", "{scope}"]',
            )
        )
    roles = [r for r in hub.get("load_roles", []) or [] if isinstance(r, dict) and _grants(r.get("scopes"), service)]
    if not any(r.get("name") == "user" for r in roles):  # every hub user holds the role "user"
        groups = hub.get("load_groups", {}) or {}
        members = {
            str(name): {str(u) for u in (g.get("users", []) if isinstance(g, dict) else g or [])}
            for name, g in (groups.items() if isinstance(groups, dict) else [])
        }
        holders = {str(u) for r in roles for u in r.get("users", []) or []}
        holders |= {u for r in roles for g in r.get("groups", []) or [] for u in members.get(str(g), set())}
        students = accounts(course)
        left = [s for s in students if s not in holders] if students else ["the students"]
        if left:
            out.append(
                Problem(
                    f"{', '.join(left[:5])}{' and others' if len(left) > 5 else ''} do not hold {scope} (not in the "
                    "scopes of the role 'user', nor of a role of theirs): their servers' tokens carry only what "
                    "they hold",
                    f'{{"name": "user", "scopes": ["self", "{scope}"]}} in c.JupyterHub.load_roles',
                )
            )
    return out


def hub_exchange_problems(course, account: str | None) -> list[Problem]:
    """A course on the hub exchange: the service answers the course's token as an instructor's, and the
    students' ``account`` (the one every student's server runs as) reads neither the exchange's
    store nor the course's private files."""
    from gradekit.exchange.hub import wire
    from gradekit.exchange.hub.course import HubExchange, settings_of

    exchange = HubExchange(course)
    try:
        problem = exchange.ready()
    except Exception as exc:  # a UsageError: no token, no URL
        problem = str(exc)
    if problem:
        return [
            Problem(
                problem,
                "start the hub exchange as a service of the hub (gradekit hub-exchange) and check "
                "c.GradekitHubExchange.url, token_file and the role that gives the course's token "
                "the instructor scope (docs/admin/kubernetes-docker.md)",
            )
        ]
    info = exchange.client.json("GET", wire.PING.url())
    if account is None:
        return []
    private = [Path(info["store"])] if info.get("store") else []
    # the course's own: its private files, and every student's release, hand-in, grading and feedback
    private += [
        course.root / d
        for d in ("source", "autograder", "solutions", ".gradekit", "release", "submitted", "autograded", "feedback")
    ]
    if course.db_url.startswith("sqlite:///"):
        private.append(Path(course.db_url.removeprefix("sqlite:///")))
    token = str(settings_of(course).get("token_file") or "")
    if token:
        private.append(Path(course.root, token))
    try:
        pwd.getpwnam(account)
    except KeyError:
        return [
            Problem(
                f"--student-account {account}: no such account here, so nothing was read as it",
                "give the account the students' servers run as on this machine, or leave --student-account out",
            )
        ]
    out = []
    for path in private:
        if path.exists() and account_reads(account, path):
            out.append(
                Problem(
                    f"the students' account {account} can read {path}",
                    f"chmod 0700 {path if path.is_dir() else path.parent}   # the service's or the instructor's alone",
                )
            )
    return out
