"""``gradekit hub-config``: the config the docs show is the one it writes, and a missing path is one line.

The hub test (tests/handout/test_jupyterhub.py) runs what ``hub-config --write`` writes as it
is; here the docs' page (docs/admin/jupyterhub.md) is held to the same text, for the docs' course.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import VENV_BIN, CourseDir

from gradekit.hub.config.shapes import Plan, text

DOC = Path(__file__).resolve().parents[2] / "docs" / "admin" / "jupyterhub.md"

# the docs' deployment: a course in /srv/courses, make deploy's /opt/gradekit, the hub's folder /srv/jupyterhub
DOC_PLAN = dict(
    course=SimpleNamespace(course_id="transformers101", root=Path("/srv/courses/transformers101")),
    assignments=["self_attention"], instructors=["prof"], accounts=["ada", "wei"],
    folder=Path("/srv/jupyterhub"), deploy=Path("/opt/gradekit"),
    gradekit=Path("/srv/courses/transformers101/.venv/bin/gradekit"), public_url="https://hub.example.edu/",
)


def test_the_docs_show_the_config_hub_config_writes():
    page = DOC.read_text()
    blocks = re.findall(r"```python\n(# jupyterhub_config.py for .*?)```", page, re.S)
    assert len(blocks) == 1, "docs/admin/jupyterhub.md shows no (or more than one) written jupyterhub_config.py"
    assert blocks[0] == text(Plan(**DOC_PLAN)), "the page's config is not what gradekit hub-config writes"


ONE = Path(__file__).resolve().parents[2] / "docs" / "admin" / "one-account.md"


def test_the_one_account_page_shows_the_config_hub_config_writes():
    """docs/admin/one-account.md's course: the tutorial's physics101, its hub in /srv/jupyterhub."""
    page = ONE.read_text()
    # the services' gradekit is the one the page's step 1 builds (it showed a .venv in the course that no
    # step made)
    (venv,) = re.findall(r"^make course-env COURSE_VENV=(\S+)", page, re.M)
    plan = Plan(course=SimpleNamespace(course_id="physics101", root=Path("/srv/courses/physics101")),
                assignments=["week1"], instructors=["prof"], accounts=["alice", "bob", "chen"],
                folder=Path("/srv/jupyterhub"), deploy=Path("/opt/gradekit"),
                gradekit=Path(venv) / "bin" / "gradekit", shape="one-account",
                public_url="https://hub.example.edu/")
    (block,) = re.findall(r"```python\n(# jupyterhub_config.py for .*?)```", page, re.S)
    assert block == text(plan), "the page's config is not what gradekit hub-config --shape one-account writes"
    services = {s["name"]: s for s in _loaded(block, token=True).JupyterHub.services}
    assert services["gradekit-exchange"]["display"] is False and services["gradekit"]["api_token"] == "t" * 64


def _loaded(config: str, token: bool = False):
    """A config as the hub loads it (traitlets), in a folder of its own (with a course token copy)."""
    import tempfile

    from traitlets.config.loader import PyFileConfigLoader

    with tempfile.TemporaryDirectory() as folder:
        config = config.replace('HUB = "/srv/jupyterhub"', f"HUB = {folder!r}")
        Path(folder, "jupyterhub_config.py").write_text(config)
        if token:
            Path(folder, "state").mkdir()
            Path(folder, "state", "gradekit-token").write_text("t" * 64 + "\n")
        return PyFileConfigLoader("jupyterhub_config.py", path=folder).load_config()


def test_the_written_config_is_python_the_hub_loads():
    from traitlets.config.loader import PyFileConfigLoader

    config = text(Plan(**DOC_PLAN))
    compile(config, "jupyterhub_config.py", "exec")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "jupyterhub_config.py").write_text(config)
        c = PyFileConfigLoader("jupyterhub_config.py", path=folder).load_config()
    services = {s["name"]: s for s in c.JupyterHub.services}
    assert set(services) == {"gradekit", "gradekit-grade", "gradekit-report"}
    for service in services.values():   # full paths, a cwd and an environment: nothing from the hub's PATH
        assert Path(service["command"][0]).is_absolute() and service["cwd"] == "/srv/courses/transformers101"
        assert service["environment"]["PATH"].startswith("/srv/courses/transformers101/.venv/bin")
    assert services["gradekit-grade"]["url"].startswith("http://127.0.0.1:")
    assert services["gradekit-grade"]["oauth_client_allowed_scopes"] == ["custom:gradekit:instruct:transformers101"]
    assert c.LocalProcessSpawner.popen_kwargs == {"umask": 0o077}
    assert c.Authenticator.allowed_users == {"ada", "wei", "prof"}
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8000"


def test_a_path_that_is_not_there_is_one_line(tmp_path):
    course = CourseDir.create(tmp_path / "course", ("alice",))
    proc = subprocess.run([str(VENV_BIN / "gradekit"), "hub-config", "--instructors", "prof", "self_attention",
                           "--deploy", str(tmp_path / "nowhere")], cwd=course.root, capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "nowhere/venv/bin/jupyterhub-singleuser does not exist" in proc.stderr and "make deploy" in proc.stderr
    proc = subprocess.run([str(VENV_BIN / "gradekit"), "hub-config", "self_attention"], cwd=course.root,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "no instructors: name them with --instructors" in proc.stderr, proc.stderr


@pytest.mark.parametrize("rows, wei", [("account,interface\nwei,notebook\n", "/tree"), ("", "/lab"),
                                       ("account,interface\nwei,Notebook7\nada,lab\n", "/tree")])
def test_notebook_7_for_the_accounts_interfaces_csv_names(tmp_path, rows, wei):
    """The spawner's hook, as the hub runs it: the account's interface, its home made private, its settings."""
    import os
    import pwd

    config = text(Plan(**{**DOC_PLAN, "folder": tmp_path}))
    (tmp_path / "interfaces.csv").write_text(rows)
    namespace: dict = {"get_config": lambda: SimpleNamespace(**{k: _Anything() for k in
                                                                  ("JupyterHub", "Authenticator", "Spawner",
                                                                   "LocalProcessSpawner", "ConfigurableHTTPProxy")})}
    exec(compile(config, "jupyterhub_config.py", "exec"), namespace)
    assert namespace["interface_of"]("wei") == ("notebook" if wei == "/tree" else "lab")
    assert namespace["interface_of"]("ada") == "lab"
    home = tmp_path / "home"                      # the account's home, as useradd -m makes it on Debian
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)
    me = pwd.getpwuid(os.getuid())
    namespace["pwd"] = SimpleNamespace(getpwnam=lambda name: SimpleNamespace(pw_dir=str(home), pw_uid=me.pw_uid))
    spawner = SimpleNamespace(user=SimpleNamespace(name="wei"), environment={"LANG": "C.UTF-8"}, default_url="",
                              args=[])
    namespace["pre_spawn_hook"](spawner)
    assert home.stat().st_mode & 0o777 == 0o700      # made the account's alone
    assert spawner.default_url == wei
    assert spawner.environment == {"LANG": "C.UTF-8", "JUPYTER_CONFIG_PATH": f"{tmp_path}/students"}
    teacher = SimpleNamespace(user=SimpleNamespace(name="prof"), environment={}, default_url="", args=[])
    namespace["pre_spawn_hook"](teacher)          # Formgrader's course below the server's root: /
    assert teacher.environment["JUPYTER_CONFIG_PATH"] == f"{tmp_path}/instructors" and teacher.notebook_dir == "/"


class _Anything:
    def __getattr__(self, name):
        return self

    def __setattr__(self, name, value):
        pass


def test_the_services_run_the_courses_own_environment_when_there_is_one(tmp_path):
    """Without --gradekit, the services' gradekit is the course's .venv that `make course-env` built (no
    test tools), and only without one the gradekit that runs the command."""
    course = CourseDir.create(tmp_path / "course", ("alice",))
    deploy = tmp_path / "deploy"
    for tool in ("venv/bin/jupyterhub-singleuser", "node_modules/.bin/configurable-http-proxy"):
        (deploy / tool).parent.mkdir(parents=True, exist_ok=True)
        (deploy / tool).write_text("#!/bin/sh\n")
        (deploy / tool).chmod(0o755)

    def services_gradekit() -> str:
        proc = subprocess.run([str(VENV_BIN / "gradekit"), "hub-config", "--instructors", "prof", "self_attention",
                               "--deploy", str(deploy)], cwd=course.root, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return re.search(r'^GRADEKIT = "(.*)"', proc.stdout, re.M).group(1)

    assert services_gradekit() == str(VENV_BIN / "gradekit")
    own = course.root / ".venv" / "bin" / "gradekit"
    own.parent.mkdir(parents=True)
    own.write_text("#!/bin/sh\n")
    own.chmod(0o755)
    assert services_gradekit() == str(VENV_BIN / "gradekit")     # a .venv, but not make course-env's
    (course.root / ".venv" / ".course-deps-0123456789ab").touch()
    assert services_gradekit() == str(own)
