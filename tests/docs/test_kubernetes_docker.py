"""docs/admin/kubernetes-docker.md's two snippets parse, and name what gradekit reads.

They are untested beyond this (the page says so): the Zero to JupyterHub ``values.yaml`` (with the
exchange's Deployment and Service) is valid YAML whose hub config, roles and students' config are
gradekit's; the DockerSpawner ``jupyterhub_config.py`` runs on a traitlets Config and its services'
commands are ones ``gradekit`` parses.
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


def _students_classes(c) -> None:
    assert c.CourseDirectory.course_id == COURSE and c.GradekitHubExchange.url.endswith("/services/gradekit-exchange/")
    for step in ("fetch_assignment", "submit", "list", "fetch_feedback"):
        module, _, name = c.ExchangeFactory[step].rpartition(".")
        assert hasattr(importlib.import_module(module), name), c.ExchangeFactory[step]


def test_the_zero_to_jupyterhub_values_parse():
    from gradekit.cli.student_config import HUB_STEPS
    from gradekit.hub.auth import instructor_role, instructor_scope

    values, deployment, service = yaml.safe_load_all(_block("Zero to JupyterHub: `values.yaml`", "yaml"))
    hub = values["hub"]
    assert hub["services"]["gradekit-exchange"]["url"].endswith(":10101") and hub["services"]["gradekit"]["apiToken"]
    roles = hub["loadRoles"]
    assert instructor_scope(COURSE) in roles[instructor_role(COURSE)]["scopes"]
    assert ACCESS in roles[instructor_role(COURSE)]["scopes"] and ACCESS in roles["user"]["scopes"]
    extra = _config(hub["extraConfig"]["gradekit.py"])
    assert ACCESS in extra.Spawner.server_token_scopes and instructor_scope(COURSE) in extra.JupyterHub.custom_scopes
    students = _config(values["singleuser"]["extraFiles"]["gradekit-nbgrader-config"]["stringData"])
    _students_classes(students)
    assert dict(students.ExchangeFactory) == HUB_STEPS      # what `gradekit student-config` writes
    assert deployment["kind"] == "Deployment" and service["kind"] == "Service"
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    _parses(container["command"])
    env = {e["name"] for e in container["env"]}
    assert {"JUPYTERHUB_API_URL", "JUPYTERHUB_API_TOKEN", "JUPYTERHUB_SERVICE_PREFIX"} <= env


def test_the_dockerspawner_config_runs_on_a_config(tmp_path):
    from gradekit.hub.auth import instructor_role, instructor_scope

    source = _block("DockerSpawner: `jupyterhub_config.py`", "python")
    secret = tmp_path / "token"
    secret.write_text("x" * 64)
    c = _config(source, open=lambda path, *a, **k: open(secret, *a, **k))
    assert c.JupyterHub.spawner_class == "dockerspawner.DockerSpawner"
    assert ACCESS in c.Spawner.server_token_scopes
    services = {s["name"]: s for s in c.JupyterHub.services}
    _parses(services["gradekit-exchange"]["command"])
    roles = {r["name"]: r for r in c.JupyterHub.load_roles}
    assert instructor_scope(COURSE) in roles[instructor_role(COURSE)]["scopes"] and "gradekit" in roles[
        instructor_role(COURSE)]["services"]
    assert ACCESS in roles["user"]["scopes"]
