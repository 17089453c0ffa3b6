"""The shape ``docker``: the hub in a container, every student's server a container of DockerSpawner's.

Every server is the image's ``jovyan``, in a container of its own with a volume of its own: nothing
of a classmate's is there to see. The hub exchange is a service the hub starts (in the hub's
container, from its image, its store in the hub's state/, which no student's container mounts);
the students' containers reach it through the hub's proxy (``http://jupyterhub:<port>/...`` on
the Docker network). The course stays on the course's machine, with bubblewrap: gradekit serve,
the grading page and the class report run there (gradekit.hub.config.external) and reach the hub
on the ports the hub's container publishes on loopback.
"""

from __future__ import annotations

from pathlib import Path

from gradekit.hub.config import external, pieces
from gradekit.hub.config.plan import EXCHANGE, GRADE, REPORT, SERVE, Plan, lit
from gradekit.hub.config.shape import Shape

HUB_GRADEKIT = "/usr/local/bin/gradekit"  # in the hub's image (docs/admin/kubernetes-docker.md)
NETWORK = "jupyterhub"  # the Docker network of the hub and the servers; the hub's container is named so too


class Docker(Shape):
    name = "docker"
    help = "the hub in a container, each server a container of DockerSpawner's; the hub exchange"
    exchange = "hub"
    logins = ("passwords",)

    def needed(self, plan: Plan) -> dict[Path, str]:
        return {plan.gradekit: "the gradekit the course's services run (--gradekit)"}

    def check(self, plan: Plan) -> None:
        from gradekit.errors import UsageError

        super().check(plan)
        if not plan.course_host:
            raise UsageError(
                "--course-host HOST: the address the hub's container reaches this machine at (the Docker "
                f"network {NETWORK}'s gateway, e.g. 172.18.0.1), for the grading page and the class report"
            )

    def students_url(self, plan: Plan) -> str:
        return f"http://{NETWORK}:{plan.port}/services/{EXCHANGE}/"

    def course_url(self, plan: Plan) -> str:
        return f"http://127.0.0.1:{plan.port}/services/{EXCHANGE}/"

    def text(self, plan: Plan) -> str:
        from gradekit.web.auth import instructor_scope

        scope = instructor_scope(plan.course_id)
        pages = []
        for service, comment in ((GRADE, "the grading page"), (REPORT, "the class report")):
            pages += [
                f"    {{  # {comment}, for the instructors: on the course's machine (course-services/)",
                f'        "name": "{service}",',
                f'        "url": "{external.page_url(plan, service)}",',
                f'        "api_token": token("{service}"),',
                f'        "oauth_redirect_uri": "/services/{service}/oauth_callback",',
                f'        "oauth_client_allowed_scopes": [{lit(scope)}],',
                '        "oauth_no_confirm": True,',
                "    },",
            ]
        lines = [
            f"# jupyterhub_config.py for {plan.course_id}, written by `gradekit hub-config --shape docker` (run it",
            "# again after a change: students, instructors, assignments). The hub runs in a container named",
            f"# {NETWORK}, on the Docker network {NETWORK}, with this folder mounted at the same path:",
            f"#   docker network create {NETWORK}",
            f"#   docker run -d --name {NETWORK} --network {NETWORK} -p {plan.port}:{plan.port} "
            f"-p 127.0.0.1:{plan.hub_port}:{plan.hub_port} \\",
            f"#     -v /var/run/docker.sock:/var/run/docker.sock -v {plan.folder}:{plan.folder} <the hub's image> \\",
            f"#     jupyterhub -f {plan.folder}/jupyterhub_config.py",
            "import csv",
            "",
            "c = get_config()  # noqa: F821",
            f"HUB = {lit(str(plan.folder))}  # this folder, in the hub's container as on the machine",
            "STATE = f\"{HUB}/state\"  # 0700: the hub's database, cookie secret, tokens, the exchange's store",
            f"IMAGE = {lit(plan.image)}  # the students' image: gradekit's student side, no course",
            "",
            f'c.JupyterHub.bind_url = "{plan.scheme}://0.0.0.0:{plan.port}"',
            *([f"c.JupyterHub.public_url = {lit(plan.public_url)}"] if plan.public_url else []),
            *(
                [f"c.JupyterHub.ssl_cert = {lit(plan.ssl_cert)}", f"c.JupyterHub.ssl_key = {lit(plan.ssl_key)}"]
                if plan.ssl_cert
                else ["# no TLS here: put a reverse proxy with TLS in front, or give --ssl-cert and --ssl-key"]
            ),
            f'c.JupyterHub.hub_bind_url = "http://0.0.0.0:{plan.hub_port}"  # the servers and the course\'s services',
            f'c.JupyterHub.hub_connect_url = "http://{NETWORK}:{plan.hub_port}"',
            'c.JupyterHub.db_url = f"sqlite:///{STATE}/jupyterhub.sqlite"',
            'c.JupyterHub.cookie_secret_file = f"{STATE}/jupyterhub_cookie_secret"',
            "",
            *self.login(plan).python(plan),
            "",
            *pieces.instructors(plan, True, self.login(plan)),
            "",
            "# each server: a container of its own from the students' image, a volume of its own; the course's",
            "# Jupyter settings for its kind, read-only",
            'c.JupyterHub.spawner_class = "dockerspawner.DockerSpawner"',
            "c.DockerSpawner.image = IMAGE",
            f'c.DockerSpawner.network_name = "{NETWORK}"',
            "c.DockerSpawner.remove = True",
            'c.DockerSpawner.notebook_dir = "/home/jovyan/work"',
            "c.Spawner.start_timeout = 120",
            "c.Spawner.http_timeout = 90",
            "",
            "",
            *pieces.interface_of(),
            "",
            "",
            "def pre_spawn_hook(spawner):",
            "    name = spawner.user.name",
            *pieces.teaches(plan, self.login(plan)),
            '    settings = f"{HUB}/instructors" if teaches else f"{HUB}/students"',
            '    spawner.volumes = {"jupyterhub-user-{username}": "/home/jovyan/work",',
            '                       settings: {"bind": "/etc/gradekit/jupyter", "mode": "ro"}}',
            '    spawner.environment = {**spawner.environment, "JUPYTER_CONFIG_PATH": "/etc/gradekit/jupyter"}',
            '    spawner.default_url = "/tree" if interface_of(name) == "notebook" else "/lab"',
            "",
            "",
            "c.Spawner.pre_spawn_hook = pre_spawn_hook",
            "",
            "",
            "def token(service):",
            '    with open(f"{STATE}/service-{service}.token") as fh:  # made by hub-config --write',
            "        return fh.read().strip()",
            "",
            "",
            "# the hub exchange, a service the hub starts in its container; the course's services run on the",
            "# course's machine and the hub knows them by their tokens",
            f'with open(f"{{STATE}}/{pieces.TOKEN_COPY}") as fh:  # the course\'s .gradekit/hub-token, copied',
            "    COURSE_TOKEN = fh.read().strip()",
            "c.JupyterHub.services = [",
            "    {",
            f'        "name": "{EXCHANGE}",  # the hub exchange: hand-ins known by their hub login',
            f'        "url": "http://{NETWORK}:{plan.exchange_port}",',
            f'        "command": [{lit(HUB_GRADEKIT)}, "hub-exchange", "--course-id", {lit(plan.course_id)}, '
            '"--store", f"{STATE}/exchange"' + "".join(f", {lit(a)}" for a in plan.exchange_args) + "],",
            '        "environment": {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"},',
            '        "display": False,  # not in the students\' Services menu',
            "    },",
            f'    {{"name": "{SERVE}", "api_token": COURSE_TOKEN}},  # gradekit serve: deploy/gradekit-serve.service',
            *pages,
            "]",
            "",
        ]
        return "\n".join(lines)

    def prepare(self, plan: Plan) -> None:
        external.make_tokens(plan, [GRADE, REPORT])

    def files(self, plan: Plan) -> dict[str, tuple[str, int]]:
        return external.files(plan, f"http://127.0.0.1:{plan.hub_port}/hub/api", external.commands(plan))
