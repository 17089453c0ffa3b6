"""The shape ``kubernetes``: a Zero to JupyterHub chart's values, every student's server a pod of its own.

Every server is the image's ``jovyan`` in a pod of its own with a volume of its own. What gradekit
writes is a fragment of the chart's values (``values.yaml``: merge it with yours, ``helm upgrade
... -f yours.yaml -f values.yaml``) -- the hub's services, their roles and the students' scopes,
the scopes of the token each server gets, the students' settings files and the network policies
that let the servers and the proxy reach the exchange -- and the exchange's own manifest
(``gradekit-exchange.yaml``: its Deployment, Service, volume claim and token, which Helm's values
cannot carry). The login stays the chart's (``hub.config``'s authenticator): gradekit sets who is
allowed. The course stays on the course's machine (gradekit.hub.config.external), reaching the hub
at its public address.
"""

from __future__ import annotations

from pathlib import Path

from gradekit.hub.config import external
from gradekit.hub.config.plan import EXCHANGE, GRADE, REPORT, SERVE, Plan
from gradekit.hub.config.shape import Shape

EXCHANGE_TOKEN = "exchange"  # state/service-exchange.token: the exchange's own token (its Secret too)


class Kubernetes(Shape):
    name = "kubernetes"
    help = "Zero to JupyterHub: a fragment of the chart's values and the exchange's manifest; the hub exchange"
    exchange = "hub"
    logins = ("chart",)
    main = "values.yaml"

    def needed(self, plan: Plan) -> dict[Path, str]:
        return {plan.gradekit: "the gradekit the course's services run (--gradekit)"}

    def check(self, plan: Plan) -> None:
        from gradekit.errors import UsageError

        super().check(plan)
        for value, option, why in (
            (plan.public_url, "--public-url URL", "the hub's address, which the course's machine reaches it at"),
            (plan.course_host, "--course-host HOST", "the address the hub reaches the course's pages at"),
        ):
            if not value:
                raise UsageError(f"{option}: {why}")

    def students_url(self, plan: Plan) -> str:
        return f"http://{EXCHANGE}:{plan.exchange_port}/services/{EXCHANGE}/"

    def course_url(self, plan: Plan) -> str:
        return (plan.public_url or "https://hub.example.edu/").rstrip("/") + f"/services/{EXCHANGE}/"

    def prepare(self, plan: Plan) -> None:
        external.make_tokens(plan, [GRADE, REPORT, EXCHANGE_TOKEN])

    def _course_token(self, plan: Plan) -> str:
        from gradekit.exchange.hub.course import settings_of

        try:
            return Path(plan.root, str(settings_of(plan.course)["token_file"])).read_text().strip()
        except (OSError, KeyError):
            return external.UNMADE

    def values(self, plan: Plan) -> dict:
        from gradekit.handout.students import settings_files
        from gradekit.web.auth import instructor_role, instructor_scope

        cid = plan.course_id
        scope, role = instructor_scope(cid), instructor_role(cid)
        access = f"access:services!service={EXCHANGE}"
        pages = {
            service: {
                "url": external.page_url(plan, service),
                "apiToken": external.token(plan, service),
                "oauth_redirect_uri": f"/services/{service}/oauth_callback",
                "oauth_client_allowed_scopes": [scope],
                "oauth_no_confirm": True,
            }
            for service in (GRADE, REPORT)
        }
        to_exchange = {
            "to": [{"podSelector": {"matchLabels": {"app": EXCHANGE}}}],
            "ports": [{"port": plan.exchange_port}],
        }
        extra = "\n".join(
            [
                f'c.JupyterHub.custom_scopes = {{"{scope}": {{"description": "teaches {cid} (gradekit)"}}}}',
                f'c.JupyterHub.load_groups = {{"{role}": {{"users": {sorted(plan.instructors)!r}}}}}',
                "# the token each student's server gets may use the exchange (a token holds what both allow)",
                f'c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server", "{access}"]',
                "",
            ]
        )
        tagged = ":" in plan.image.rsplit("/", 1)[-1]
        name, _, tag = plan.image.rpartition(":") if tagged else (plan.image, "", "latest")
        return {
            "hub": {
                "config": self.login(plan).values(plan),
                "services": {
                    EXCHANGE: {
                        "url": f"http://{EXCHANGE}:{plan.exchange_port}",
                        "apiToken": external.token(plan, EXCHANGE_TOKEN),
                        "display": False,
                    },
                    SERVE: {"apiToken": self._course_token(plan)},
                    **pages,
                },
                "loadRoles": {
                    role: {
                        "description": f"teaches {cid} (gradekit)",
                        "scopes": [scope, access, *(f"access:services!service={s}" for s in (GRADE, REPORT))],
                        "services": [SERVE],
                        "groups": [role],
                    },
                    "user": {"scopes": ["self", access]},
                },
                "extraConfig": {"gradekit.py": extra},
            },
            "proxy": {"chp": {"networkPolicy": {"egress": [to_exchange]}}},
            "singleuser": {
                "networkPolicy": {"egress": [to_exchange]},
                "image": {"name": name, "tag": tag},
                "extraEnv": {"JUPYTER_CONFIG_PATH": "/etc/gradekit/jupyter"},
                "extraFiles": {
                    f"gradekit-{key}": {"mountPath": f"/etc/gradekit/jupyter/{path}", "stringData": text}
                    for key, (path, text) in settings_files(plan.course, self.students_url(plan)).items()
                },
            },
        }

    def text(self, plan: Plan) -> str:
        import yaml

        class Literal(str):
            pass

        def literal(dumper, value):
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")

        yaml.add_representer(Literal, literal, Dumper=yaml.SafeDumper)

        def blocks(value):
            if isinstance(value, dict):
                return {k: blocks(v) for k, v in value.items()}
            if isinstance(value, list):
                return [blocks(v) for v in value]
            return Literal(value) if isinstance(value, str) and "\n" in value else value

        head = [
            f"# values.yaml for {plan.course_id}, written by `gradekit hub-config --shape kubernetes` (run it again",
            "# after a change). A fragment: merge it with your chart's values, then the exchange's manifest:",
            "#   helm upgrade --install jhub jupyterhub/jupyterhub -n jhub -f your-values.yaml -f values.yaml",
            "#   kubectl -n jhub apply -f gradekit-exchange.yaml",
            "# It holds tokens: keep it 0600, out of git.",
        ]
        return "\n".join(head) + "\n" + yaml.safe_dump(blocks(self.values(plan)), sort_keys=False, width=110)

    def files(self, plan: Plan) -> dict[str, tuple[str, int]]:
        return {
            "gradekit-exchange.yaml": (self.manifest(plan), 0o600),
            **external.files(plan, plan.public_url.rstrip("/") + "/hub/api", external.commands(plan)),
        }

    def manifest(self, plan: Plan) -> str:
        import yaml

        port = plan.exchange_port
        labels = {"app": EXCHANGE, "hub.jupyter.org/network-access-hub": "true"}  # the hub's API lets it in
        env = [
            {"name": "JUPYTERHUB_API_URL", "value": "http://hub:8081/hub/api"},
            {"name": "JUPYTERHUB_SERVICE_NAME", "value": EXCHANGE},
            {"name": "JUPYTERHUB_SERVICE_PREFIX", "value": f"/services/{EXCHANGE}/"},
            {"name": "JUPYTERHUB_API_TOKEN", "valueFrom": {"secretKeyRef": {"name": EXCHANGE, "key": "token"}}},
        ]
        exchange_image = plan.image.replace("/student:", "/exchange:") if "/student:" in plan.image else plan.image
        docs = [
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": EXCHANGE},
                "stringData": {"token": external.token(plan, EXCHANGE_TOKEN)},
            },
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": EXCHANGE},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}},
            },
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": EXCHANGE},
                "spec": {
                    "replicas": 1,  # one process owns the store
                    "strategy": {"type": "Recreate"},  # the old pod stops before the new one starts
                    "selector": {"matchLabels": {"app": EXCHANGE}},
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": {
                            "securityContext": {"runAsUser": 2000, "fsGroup": 2000},
                            "containers": [
                                {
                                    "name": "exchange",
                                    "image": exchange_image,
                                    "command": [
                                        "gradekit",
                                        "hub-exchange",
                                        "--course-id",
                                        plan.course_id,
                                        "--store",
                                        "/srv/gradekit-exchange",
                                        "--bind",
                                        f"http://0.0.0.0:{port}",
                                        *plan.exchange_args,
                                    ],
                                    "env": env,
                                    "ports": [{"containerPort": port}],
                                    "volumeMounts": [{"name": "store", "mountPath": "/srv/gradekit-exchange"}],
                                }
                            ],
                            "volumes": [{"name": "store", "persistentVolumeClaim": {"claimName": EXCHANGE}}],
                        },
                    },
                },
            },
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": EXCHANGE},
                "spec": {"selector": {"app": EXCHANGE}, "ports": [{"port": port, "targetPort": port}]},
            },
        ]
        head = (
            f"# gradekit-exchange.yaml for {plan.course_id}, written by `gradekit hub-config --shape kubernetes`:\n"
            "# the hub exchange's pod, its Service, its store's volume and its token (keep this file 0600)\n"
        )
        return head + yaml.safe_dump_all(docs, sort_keys=False, width=110)
