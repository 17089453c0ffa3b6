"""docs/admin/kubernetes-docker.md shows what ``gradekit hub-config`` writes, and it parses and names what
gradekit reads.

They are untested beyond this (the page says so): the page's DockerSpawner config, chart values and
exchange manifest are hub-config's output for the page's course, as it is; the Zero to JupyterHub
``values.yaml`` is valid YAML whose hub config, roles, network policies and students' settings are
gradekit's, and the exchange's own manifest (its Secret, Deployment, Service and volume claim: Helm's
values cannot carry them) labels its pod for the hub's network policy; the DockerSpawner
``jupyterhub_config.py`` runs on a traitlets Config and its services' commands are ones ``gradekit``
parses.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "admin" / "kubernetes-docker.md"
COURSE = "transformers101"
ACCESS = "access:services!service=gradekit-exchange"


def _block(heading: str, language: str) -> str:
    text = PAGE.read_text()
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(rf"```{language}\n(.*?)```", section, re.S)
    return block


def _config(source: str, **names):
    from traitlets.config import Config

    c = Config()
    exec(compile(source, "snippet", "exec"), {"c": c, "get_config": lambda: c, **names})  # z2jh: c is given
    return c


def _parses(command: list[str]) -> None:
    from gradekit.cli.main import build_parser

    assert Path(command[0]).name == "gradekit", command
    args = build_parser().parse_args(command[1:])
    assert args.run.__module__ == "gradekit.cli.hub_exchange"


def _plan(shape: str):
    """The page's course, as its hub-config commands name it."""
    from types import SimpleNamespace

    from gradekit.hub.config.plan import Plan

    course = SimpleNamespace(course_id=COURSE, root=Path(f"/srv/courses/{COURSE}"), settings=SimpleNamespace(
        exchange="hub"), config={"GradekitHubExchange": {"url": "https://hub.example.edu/services/gradekit-exchange/",
                                                         "token_file": ".gradekit/hub-token"}})
    return Plan(course=course, assignments=["self_attention"], instructors=["prof"], accounts=["ada", "wei"],
                folder=Path("/srv/jupyterhub"), deploy=Path("/opt/gradekit"),
                gradekit=Path(f"/srv/courses/{COURSE}/.venv/bin/gradekit"), shape=shape,
                public_url="https://hub.example.edu/",
                course_host="grader.example.edu" if shape == "kubernetes" else "172.18.0.1",
                image=f"registry.example.edu/{COURSE}/student:2026.1")


def test_the_page_shows_what_hub_config_writes():
    from gradekit.hub.config.shapes import shape_of, text

    docker, k8s = _plan("docker"), _plan("kubernetes")
    assert _block("DockerSpawner: `jupyterhub_config.py`", "python") == text(docker)
    assert _block("Zero to JupyterHub: `values.yaml`", "yaml") == text(k8s)
    assert _block("Zero to JupyterHub: the exchange's manifest, `gradekit-exchange.yaml`", "yaml") == \
        shape_of(k8s).manifest(k8s)


def _students_classes(c) -> None:
    assert c.CourseDirectory.course_id == COURSE and c.GradekitHubExchange.url.endswith("/services/gradekit-exchange/")
    for step in ("fetch_assignment", "submit", "list", "fetch_feedback"):
        module, _, name = c.ExchangeFactory[step].rpartition(".")
        assert hasattr(importlib.import_module(module), name), c.ExchangeFactory[step]


def test_the_zero_to_jupyterhub_values_parse():
    from gradekit.cli.student_config import HUB_STEPS
    from gradekit.web.auth import instructor_role, instructor_scope

    (values,) = yaml.safe_load_all(_block("Zero to JupyterHub: `values.yaml`", "yaml"))
    hub = values["hub"]
    assert hub["services"]["gradekit-exchange"]["url"].endswith(":10101") and hub["services"]["gradekit"]["apiToken"]
    assert hub["services"]["gradekit-exchange"]["display"] is False     # not in the students' Services menu
    roles = hub["loadRoles"]
    assert instructor_scope(COURSE) in roles[instructor_role(COURSE)]["scopes"]
    assert ACCESS in roles[instructor_role(COURSE)]["scopes"] and ACCESS in roles["user"]["scopes"]
    extra = _config(hub["extraConfig"]["gradekit.py"])
    assert ACCESS in extra.Spawner.server_token_scopes and instructor_scope(COURSE) in extra.JupyterHub.custom_scopes
    files = values["singleuser"]["extraFiles"]
    students = _config(files["gradekit-nbgrader-config"]["stringData"])
    _students_classes(students)
    folder = values["singleuser"]["extraEnv"]["JUPYTER_CONFIG_PATH"]     # the settings, where the server reads them
    assert all(f["mountPath"].startswith(folder + "/") for f in files.values())
    assert dict(students.ExchangeFactory) == HUB_STEPS      # what `gradekit student-config` writes
    # the students' servers and the proxy may reach the exchange's pod (z2jh's network policies)
    to_exchange = {"to": [{"podSelector": {"matchLabels": {"app": "gradekit-exchange"}}}], "ports": [{"port": 10101}]}
    assert to_exchange in values["singleuser"]["networkPolicy"]["egress"]
    assert to_exchange in values["proxy"]["chp"]["networkPolicy"]["egress"]
    assert students.GradekitHubExchange.url.startswith("http://gradekit-exchange:10101/")


def test_the_exchange_s_manifest_parses_apart_from_the_values():
    secret, claim, deployment, service = yaml.safe_load_all(
        _block("Zero to JupyterHub: the exchange's manifest, `gradekit-exchange.yaml`", "yaml"))
    assert secret["kind"] == "Secret" and "token" in secret["stringData"]
    assert claim["kind"] == "PersistentVolumeClaim" and deployment["kind"] == "Deployment"
    assert service["kind"] == "Service" and service["spec"]["selector"] == {"app": "gradekit-exchange"}
    pod = deployment["spec"]["template"]
    assert pod["metadata"]["labels"] == {"app": "gradekit-exchange", "hub.jupyter.org/network-access-hub": "true"}
    assert deployment["spec"]["replicas"] == 1 and deployment["spec"]["strategy"]["type"] == "Recreate"
    (container,) = pod["spec"]["containers"]
    _parses(container["command"])
    env = {e["name"]: e for e in container["env"]}
    assert {"JUPYTERHUB_API_URL", "JUPYTERHUB_API_TOKEN", "JUPYTERHUB_SERVICE_PREFIX"} <= set(env)
    assert env["JUPYTERHUB_API_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == secret["metadata"]["name"]
    (volume,) = pod["spec"]["volumes"]
    assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]


def test_the_dockerspawner_config_runs_on_a_config(tmp_path):
    from gradekit.web.auth import instructor_role, instructor_scope

    source = _block("DockerSpawner: `jupyterhub_config.py`", "python")
    secret = tmp_path / "token"
    secret.write_text("x" * 64)
    c = _config(source, open=lambda path, *a, **k: open(secret, *a, **k))
    assert c.JupyterHub.spawner_class == "dockerspawner.DockerSpawner"
    assert ACCESS in c.Spawner.server_token_scopes
    services = {s["name"]: s for s in c.JupyterHub.services}
    _parses(services["gradekit-exchange"]["command"])
    assert services["gradekit-exchange"]["display"] is False
    for page in ("gradekit-grade", "gradekit-report"):   # on the course's machine: the hub knows their URL and token
        assert services[page]["url"].startswith("http://172.18.0.1:") and services[page]["api_token"]
    roles = {r["name"]: r for r in c.JupyterHub.load_roles}
    assert instructor_scope(COURSE) in roles[instructor_role(COURSE)]["scopes"] and "gradekit" in roles[
        instructor_role(COURSE)]["services"]
    assert ACCESS in roles["user"]["scopes"]


def test_the_images_install_the_wheel_that_make_wheel_builds(tmp_path):
    """gradekit is not on PyPI: each image copies in the wheel `make wheel` names and installs its extras
    from it; the students' image takes the folder `gradekit student-config --dir` writes."""
    import tomllib

    root = PAGE.parents[2]
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    wheel = f"gradekit-{version}-py3-none-any.whl"
    assert f"WHEEL := dist/{wheel}" in (root / "Makefile").read_text()
    students = _block("The students' image", "dockerfile")
    exchange = _block("The exchange's image", "dockerfile")
    hub = _block("The hub's image (DockerSpawner)", "dockerfile")
    for image, extras in ((students, "student"), (exchange, "hub,postgres"), (hub, "hub")):
        installs = [line for line in image.replace("\\\n", " ").splitlines() if "pip install" in line]
        (install,) = installs
        assert f"COPY {wheel} /tmp/" in image and f'"/tmp/{wheel}[{extras}]"' in install, image
        assert not re.search(r'"gradekit(\[|")', install), install   # nothing named gradekit from an index
    assert "/etc/jupyter" not in students          # one image for every course: the hub mounts the settings
    assert "USER 2000" in exchange and "--uid 2000" in exchange   # the manifest's runAsUser
