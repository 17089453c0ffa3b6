"""``gradekit doctor``: is this course's deployment private and sound? One line per problem, with its fix.

the course      source/, autograder/, solutions/, .gradekit/ (the secret, the ledger, the kept
                hand-ins) and the gradebook: no other account may read them. A path is readable
                by another account when every folder above it lets others through and it lets
                others read (its mode, or an ACL entry for another account)
the exchange    the modes of gradekit.exchange.filesystem.layout: a root nobody can rename a course out of,
                an inbound/ nobody lists, releases and feedback pages for one student each,
                submissions that are their student's and the staff's alone
                (the staff group, c.Gradekit.staff_group, may: Formgrader as an instructor who
                is not root; a group any student is in may not)
the students    the Python the students run can import gradekit's exchange classes (a package,
                never the course directory), and the collect class judges by owner
the homes       each roster account's home, and the files in it, are theirs alone: a classmate
                can neither list the home nor read a file in it (a notebook duplicated, the Lab's
                workspace)
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

import hashlib
import os
import pwd
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gradekit.doctor import isolation
from gradekit.exchange.filesystem import layout


@dataclass
class Problem:
    what: str
    fix: str

    def line(self) -> str:
        return f"{self.what}; fix: {self.fix}"


def _others_can(path: Path, bits: int, allowed: frozenset[int] = frozenset()) -> bool:
    """Whether an account that is neither the owner nor in the group has ``bits`` (stat.S_IROTH...)
    on ``path``, or an ACL entry gives another account (one not in ``allowed``) read."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    readers = set(layout.acl_readers(path)) - {st.st_uid} - allowed
    return bool(st.st_mode & bits) or bool(readers)


def reachable(path: Path) -> bool:
    """Every folder above ``path`` lets other accounts through."""
    for parent in list(Path(path).resolve().parents)[::-1]:
        if not _others_can(parent, stat.S_IXOTH):
            return False
    return True


def _students_groups(course) -> dict[int, list[str]]:
    """gid -> the roster's accounts in that group (primary or not): a group bit or ACL entry for one
    of these groups lets a student read."""
    import grp

    out: dict[int, list[str]] = {}
    for account in _accounts(course):
        try:
            entry = pwd.getpwnam(account)
        except KeyError:
            continue
        gids = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if account in g.gr_mem}
        for gid in gids:
            out.setdefault(gid, []).append(account)
    return out


def _accounts(course) -> list[str]:
    """The roster's accounts: the gradebook's students under the names c.Gradekit.identities gives them."""
    from gradekit.exchange.identity import Identities
    from gradekit.gradebook import read

    try:
        students = read.students(course)
    except Exception:  # noqa: BLE001 - no gradebook yet: no roster to check
        return []
    identities = Identities.of(course)
    return sorted({identities.account_of(s) or s for s in students})


def _students_can(path: Path, bits: int, groups: dict[int, list[str]]) -> list[str]:
    """The roster's accounts a group bit (``bits`` shifted to the group's) or a group ACL entry lets read."""
    try:
        st = os.stat(path)
    except OSError:
        return []
    found = []
    if st.st_mode & (bits << 3):
        found += groups.get(st.st_gid, [])
    for gid, perm in layout.acl_groups(path).items():
        if perm & bits:
            found += groups.get(gid, [])
    return sorted(set(found))


def share_line(root: Path, staff: str) -> str:
    """The command that lets the staff group read and write the course (Formgrader, as an instructor
    who is not root), files made later included (a default ACL), and nobody else."""
    return f"setfacl -R -m g:{staff}:rwX,d:g:{staff}:rwX {root}"


def course_problems(course) -> list[Problem]:
    out: list[Problem] = []
    root = course.root
    groups = _students_groups(course)
    staff = str(getattr(course.settings, "staff_group", "") or "")
    if staff:
        gid = layout.staff_gid(staff)
        if gid in groups:
            out.append(
                Problem(
                    f"{', '.join(groups[gid])} (students) are in the staff group {staff}, which reads the course",
                    f"gpasswd -d STUDENT {staff}",
                )
            )
    for path in [root, root / "source", root / "autograder", root / "solutions", root / ".gradekit"]:
        readers = _students_can(path, stat.S_IROTH | stat.S_IXOTH, groups) if path.exists() else []
        if readers:
            share = f"; then share it with the staff alone: {share_line(root, staff)}" if staff else ""
            out.append(
                Problem(
                    f"{path.relative_to(root) if path != root else root} can be read by students through a group "
                    f"({', '.join(readers)})",
                    f"setfacl -R -b {root} && chmod -R g-rwx,o-rwx {root}{share}",
                )
            )
            break
    private = [root / "source", root / "autograder", root / "solutions", root / ".gradekit"]
    db = course.db_url.removeprefix("sqlite:///") if course.db_url.startswith("sqlite:///") else None
    if db:
        private.append(Path(db))
    if not reachable(root) or not _others_can(root, stat.S_IXOTH):
        return out  # nobody else even gets to the course directory
    for path in private:
        if path.exists() and _others_can(path, stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0)):
            name = path.relative_to(root) if path.is_relative_to(root) else path
            out.append(
                Problem(
                    f"{name} can be read by other accounts (the reference, the graders, the secret or the grades)",
                    f"chmod 0700 {root}   # the course directory: the instructor's alone",
                )
            )
            break
    return out


def exchange_problems(course) -> list[Problem]:
    out = []
    root = layout.exchange_root(course)
    here = layout.course_exchange(course)
    if not root.exists():
        return [Problem(f"no exchange at {root}", f"gradekit release ASSIGNMENT (creates {root} 1777)")]
    problem = layout.root_problem(root)
    if problem:
        out.append(Problem(problem, f"chmod 1777 {root}"))
    inbound = here / "inbound"
    if inbound.exists() and layout.mode_of(inbound) != layout.INBOUND_MODE:
        out.append(
            Problem(
                f"{inbound} is {oct(layout.mode_of(inbound) or 0)}, not 3753: students could list or "
                "remove each other's submissions",
                "gradekit release ASSIGNMENT (sets it)",
            )
        )
    for folder in sorted((here / "outbound").glob("*")) if (here / "outbound").is_dir() else []:
        if layout.mode_of(folder) != layout.ASSIGNMENT_MODE:
            out.append(
                Problem(
                    f"{folder} is {oct(layout.mode_of(folder) or 0)}, not 0711: students could list each "
                    "other's releases",
                    f"chmod 0711 {folder}",
                )
            )
        for student in sorted(folder.iterdir()) if os.access(folder, os.R_OK) else []:
            uid = _uid(student.name)
            if uid is not None and _others_can(student, stat.S_IROTH | stat.S_IXOTH, frozenset({uid})):
                out.append(
                    Problem(
                        f"{student} can be read by every account",
                        f"gradekit release {folder.name} --force (as root, or where ACLs work)",
                    )
                )
    feedback = here / "feedback"
    if feedback.exists():
        if layout.mode_of(feedback) not in (layout.FEEDBACK_MODE, None):
            out.append(
                Problem(
                    f"{feedback} is {oct(layout.mode_of(feedback) or 0)}, not 0711: students could list "
                    "the feedback pages",
                    f"chmod 0711 {feedback}",
                )
            )
        readable = [p for p in feedback.glob("*.html") if stat.S_IMODE(p.stat().st_mode) & stat.S_IROTH]
        if readable:
            out.append(
                Problem(
                    f"{len(readable)} feedback page(s) in {feedback} can be read by every account "
                    "(their hashed names are the only secret)",
                    "nbgrader release_feedback ASSIGNMENT as root, or on a file system with ACLs",
                )
            )
    if inbound.exists() and os.access(inbound, os.R_OK):
        open_ones = [
            p
            for p in inbound.iterdir()
            if p.is_dir() and not p.is_symlink() and stat.S_IMODE(os.lstat(p).st_mode) & stat.S_IWOTH
        ]
        if open_ones:
            out.append(
                Problem(
                    f"{len(open_ones)} submission(s) in {inbound} can be changed by every account (handed "
                    "in with nbgrader's own submit)",
                    "gradekit student-config > /etc/jupyter/nbgrader_config.py (gradekit's submit class)",
                )
            )
    return out


def _uid(student: str) -> int | None:
    """The account of a student who has one of their own (else nothing of theirs can be private)."""
    try:
        return pwd.getpwnam(student).pw_uid
    except KeyError:
        return None


def student_problems(course, python: Path | None) -> list[Problem]:
    out = []
    trust = (course.config or {}).get("GradekitCollect", {}).get("trust_names", False)
    if trust:
        out.append(
            Problem(
                "c.GradekitCollect.trust_names is on: a submission counts for whatever name it carries, "
                "whoever handed it in",
                "remove it from nbgrader_config.py (it is for one account that simulates a class)",
            )
        )
    collect = str((course.config or {}).get("ExchangeFactory", {}).get("collect", ""))
    if not collect.endswith("GradekitCollect"):
        out.append(
            Problem(
                "nbgrader collect is nbgrader's own: it files a submission under the name it carries and "
                "takes its time from timestamp.txt",
                'c.ExchangeFactory.collect = "gradekit.exchange.filesystem.collect.GradekitCollect" '
                "in nbgrader_config.py",
            )
        )
    if python is None:
        return out
    if not python.exists():
        return [*out, Problem(f"{python} does not exist", "make deploy (or install gradekit into the students' venv)")]
    if Path(os.path.abspath(python)).is_relative_to(course.root.resolve()) or python.resolve().is_relative_to(
        course.root.resolve()
    ):  # a venv's bin/python is a symlink out of it: the path itself says where the venv is
        out.append(
            Problem(
                f"the students' Python {python} lives in the course directory: students would need to read it",
                "install gradekit as a package in a venv outside the course (make deploy)",
            )
        )
    if os.geteuid() == 0:
        runuser = _runuser()
        if runuser is None:
            return [*out, NO_RUNUSER]
        probe = subprocess.run(
            [runuser, "-u", "nobody", "--", str(python), "-c", "import gradekit.exchange.filesystem.nbgrader"],
            capture_output=True,
            text=True,
        )
        if probe.returncode != 0:
            why = (probe.stderr.strip().splitlines() or ["it fails"])[-1][:160]
            out.append(
                Problem(
                    f"another account cannot import gradekit's exchange classes with {python} ({why})",
                    "make deploy (a venv on the system's Python, readable by every account)",
                )
            )
    elif not reachable(python) or not os.access(python.resolve(), os.X_OK):
        out.append(Problem(f"{python} is not reachable by other accounts", "make deploy"))
    return out


def _digests(paths) -> dict[tuple[int, str], Path]:
    out = {}
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if data.strip():
            out[(len(data), hashlib.sha256(data).hexdigest())] = path
    return out


def copied_problems(course, python: Path | None) -> list[Problem]:
    """A copy of the course's private files (the reference, the graders) installed with the students'
    Python, where every account reads it: a course packaged into the deployment by mistake."""
    if python is None or not python.exists():
        return []
    private = _digests(p for d in ("solutions", "autograder") for p in (course.root / d).rglob("*.py"))
    if not private:
        return []
    probe = subprocess.run(
        [str(python), "-c", "import site, sys; print('\\n'.join(site.getsitepackages() + sys.path))"],
        capture_output=True,
        text=True,
    )
    roots = {Path(p) for p in probe.stdout.splitlines() if p and "site-packages" in p and Path(p).is_dir()}
    sizes = {size for size, _ in private}
    for root in sorted(roots):
        for dirname, _, files in os.walk(root):
            for name in files:
                if not name.endswith(".py"):
                    continue
                path = Path(dirname) / name
                try:
                    size = path.stat().st_size
                except OSError:
                    continue
                if size in sizes:
                    found = private.get((size, hashlib.sha256(path.read_bytes()).hexdigest()))
                    if found is not None and _others_can(path, stat.S_IROTH):
                        mine = found.relative_to(course.root)
                        return [
                            Problem(
                                f"a copy of the course's {mine} is installed with the students' Python, readable "
                                f"by every account: {path}",
                                f"make deploy (it installs gradekit alone), or remove the course's package from {root}",
                            )
                        ]
    return []


HOME_FILES = 20_000  # files looked at per home, at most


def home_problems(course) -> list[Problem]:
    """A roster account's home another account can list or enter, or a file in it another can read."""
    out = []
    for account in _accounts(course):
        try:
            home = Path(pwd.getpwnam(account).pw_dir)
            st = os.stat(home)
        except (KeyError, OSError):
            continue
        if not reachable(home):
            continue
        fix = f"chmod 0700 {home}   # and the servers' umask 077: gradekit hub-config writes both"
        if _others_can(home, stat.S_IROTH | stat.S_IXOTH) or st.st_mode & 0o050 and _group_has_others(st, account):
            out.append(Problem(f"the home {home} of {account} can be entered by other accounts", fix))
        readable = _readable_files(home) if _others_can(home, stat.S_IXOTH) else []
        if readable:
            out.append(
                Problem(
                    f"{len(readable)} file(s) in {home} can be read by other accounts, e.g. {readable[0]}",
                    f"chmod -R go-rwx {home}   # and chmod 0700 {home}",
                )
            )
    return out


def _group_has_others(st: os.stat_result, account: str) -> bool:
    """Whether a group other than the account's own private one owns the home (others are in it)."""
    import grp

    try:
        group = grp.getgrgid(st.st_gid)
    except KeyError:
        return False
    return bool(set(group.gr_mem) - {account}) or group.gr_name != account


def _readable_files(home: Path) -> list[Path]:
    found: list[Path] = []
    seen = 0
    for dirname, dirs, files in os.walk(home):
        here = Path(dirname)
        dirs[:] = [d for d in dirs if _others_can(here / d, stat.S_IXOTH)]  # what others cannot enter is private
        for name in files:
            seen += 1
            path = here / name
            if not os.path.islink(path) and _others_can(path, stat.S_IROTH):
                found.append(path)
        if seen > HOME_FILES:
            break
    return sorted(found, key=lambda p: (any(part.startswith(".") for part in p.relative_to(home).parts), str(p)))


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
        if path.exists() and reachable(path) and _others_can(path, stat.S_IROTH):
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
        students = _accounts(course)
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
    info = exchange.client.json("GET", "ping")
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
        if path.exists() and _account_reads(account, path):
            out.append(
                Problem(
                    f"the students' account {account} can read {path}",
                    f"chmod 0700 {path if path.is_dir() else path.parent}   # the service's or the instructor's alone",
                )
            )
    return out


NO_RUNUSER = Problem(
    "runuser was not found (not on PATH, nor in /usr/sbin or /sbin): doctor cannot ask as another account "
    "what it reads",
    "apt-get install util-linux, or run doctor with /usr/sbin on PATH",
)


def _runuser() -> str | None:
    """runuser's path: on PATH, else where Debian keeps it (/usr/sbin is not on a plain user's PATH)."""
    import shutil

    for found in (shutil.which("runuser"), "/usr/sbin/runuser", "/sbin/runuser"):
        if found and os.access(found, os.X_OK):
            return found
    return None


def _account_reads(account: str, path: Path) -> bool:
    """Whether ``account`` can read ``path`` (list it, for a folder): asked as that account (root only)."""
    test = ["test", "-r", str(path), "-a", "-x" if path.is_dir() else "-r", str(path)]
    runuser = _runuser()
    if os.geteuid() != 0 or runuser is None:
        return False
    probe = subprocess.run([runuser, "-u", account, "--", *test], capture_output=True)
    return probe.returncode == 0


def diagnose(
    course, python: Path | None = None, hub_config: Path | None = None, student_account: str | None = None
) -> list[Problem]:
    hub = hub_problems(hub_config) if hub_config else []
    if str(getattr(course.settings, "exchange", "") or "filesystem") == "hub":
        return (
            course_problems(course)
            + hub_exchange_problems(course, student_account)
            + [Problem(*p) for p in isolation.problems(course, hub_config, student_account, _hub_config)]
            + (hub_exchange_config_problems(course, hub_config) if hub_config else [])
            + copied_problems(course, python)
            + hub  # no homes: the students are hub logins, not Unix accounts (one of the same name is someone else)
        )
    return (
        course_problems(course)
        + exchange_problems(course)
        + student_problems(course, python)
        + copied_problems(course, python)
        + home_problems(course)
        + hub
    )
