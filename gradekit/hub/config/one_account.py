"""The shape ``one-account``: one machine, one Unix account for every server, each in namespaces of its own.

What a container per student gives on Kubernetes or DockerSpawner, on one machine without them:
gradekit.hub.spawner.NamespacedSpawner runs every server as one account (``--account``), inside
bubblewrap, with its own PID namespace and only its own home mounted (``--homes``/<name>, at the
account's home): no classmate's files, processes or token to be seen, and nothing of the course.
The students have no Unix account: each logs in with a password of their own (gradekit.hub.login).
The hub exchange is a service of the hub, its store in the hub's state/; the students' servers
and the course reach it through the hub's proxy, as every request goes; the course's services run
beside it with the course's token.
"""

from __future__ import annotations

from pathlib import Path

from gradekit.hub.config import pieces
from gradekit.hub.config.plan import Plan, lit
from gradekit.hub.config.shape import Shape


class OneAccount(Shape):
    name = "one-account"
    help = "one machine, every server one Unix account, each in bubblewrap namespaces of its own; the hub exchange"
    exchange = "hub"
    logins = ("passwords", "lti")

    def needed(self, plan: Plan) -> dict[Path, str]:
        import shutil

        needed = super().needed(plan)
        bwrap = shutil.which("bwrap") or "/usr/bin/bwrap"
        needed[Path(bwrap)] = "bubblewrap: each server in namespaces of its own (apt-get install bubblewrap)"
        return needed

    def check(self, plan: Plan) -> None:
        import pwd

        from gradekit.errors import UsageError

        super().check(plan)
        try:
            entry = pwd.getpwnam(plan.account)
        except KeyError:
            raise UsageError(
                f"--account {plan.account}: no such Unix account (the one every server runs as): "
                f"useradd --system --shell /usr/sbin/nologin {plan.account}"
            ) from None
        if entry.pw_uid == 0:
            raise UsageError(f"--account {plan.account} is root: the servers run as an account of their own")

    def text(self, plan: Plan) -> str:
        lines = [
            *pieces.head(plan, " --shape one-account", ["csv"]),
            f"ACCOUNT = {lit(plan.account)}  # every server runs as this Unix account, each in namespaces of its own",
            f"HOMES = {lit(str(plan.homes))}  # each person's home: HOMES/<name> (0700, {plan.account}'s)",
            "",
            *pieces.listen(plan),
            "",
            *self.login(plan).python(plan),
            "",
            *pieces.instructors(plan, True, self.login(plan)),
            "",
            "# each server: the one account, in bubblewrap -- its own PID namespace, its own home alone (at",
            "# /home/ACCOUNT), the system and the students' venv read-only, nothing of the course or the hub",
            'c.JupyterHub.spawner_class = "gradekit.hub.spawner.NamespacedSpawner"',
            "c.NamespacedSpawner.account = ACCOUNT",
            "c.NamespacedSpawner.homes = HOMES",
            *pieces.local_servers("  # the homes stay the account's alone"),
            "",
            "",
            *pieces.interface_of(),
            "",
            "",
            "def pre_spawn_hook(spawner):",
            "    name = spawner.user.name",
            *pieces.teaches(plan, self.login(plan)),
            '    settings = f"{HUB}/instructors" if teaches else f"{HUB}/students"',
            "    spawner.readable = [DEPLOY, settings]  # read-only in the server: its venv, its kind's settings",
            '    spawner.environment = {**spawner.environment, "JUPYTER_CONFIG_PATH": settings}',
            '    spawner.default_url = "/tree" if interface_of(name) == "notebook" else "/lab"',
            "",
            "",
            "c.Spawner.pre_spawn_hook = pre_spawn_hook",
            "",
            *pieces.services(plan, True, self.login(plan)),
            "",
        ]
        return "\n".join(lines)
