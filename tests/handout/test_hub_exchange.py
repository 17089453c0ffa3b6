"""The whole loop on a hub where every student's server is the same Unix account, through the hub exchange.

What Zero to JupyterHub and DockerSpawner do (every server ``jovyan``, no disk shared), on one
machine: JupyterHub on loopback with a spawner that runs every student's server as the one
account ``gkjovyan`` (a home of its own each, as a container would have), the dummy authenticator
(no Unix account for any student), the hub exchange as a service the hub starts, its store a
folder ``gkjovyan`` cannot read, and ``gradekit serve`` as a second service, grading through the
exchange. The students' servers read the folder ``gradekit student-config --dir`` writes: the hub
exchange's classes and its URL; their tokens may use the exchange.

Playwright in JupyterLab, as tests/handout/test_jupyterhub.py does it: two students each fetch
their own numbers, submit a mistake the visible checks miss, read its feedback seconds later, fix
it, hand in again and read full marks -- one in JupyterLab in English, one in Notebook 7 in
Chinese. Then: the shared account reads neither the exchange's store nor the course, and
``gradekit doctor`` says this deployment is sound.

(On one machine the shared account could read its neighbours' homes and tokens; in containers it
cannot. What this test shows is that the exchange never relies on who owns a file.)
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import hubs
import pytest
import test_jupyterhub as tj
import unix_users
from conftest import ASSIGNMENT, SECRET, VENV_BIN, CourseDir

from gradekit.web.auth import instructor_role, instructor_scope

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A = ASSIGNMENT
SHARED = "gkjovyan"
LAB, NB7 = tj.LAB, tj.NB7
PASSWORD = tj.PASSWORD
GRADEKIT = str(VENV_BIN / "gradekit")
COURSE = "transformers101"
# this journey: full feedback at once but for the permutation property, which waits for the due date;
# no limit on attempts, the best counts (tests/handout/test_jupyterhub.py declares its own)
SHOWS = tj.Shows(held="test_self_attention_permutation", attempts=0, counts="best")

HUB_CONFIG = '''\
# JupyterHub as Zero to JupyterHub and DockerSpawner run a course: every student's server the same
# account, the hub exchange as a service, gradekit serve grading through it.
import os

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid

c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = ["{chp}"]
c.JupyterHub.db_url = "sqlite:///{state}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{state}/jupyterhub_cookie_secret"
c.JupyterHub.cleanup_servers = True
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = "{password}"
c.Authenticator.allowed_users = {users!r}

SHARED = "{shared}"


class OneAccountSpawner(LocalProcessSpawner):
    """Every server as the one account SHARED, each in a home of its own (a container's, here a folder)."""

    def home(self):
        return f"/home/{{SHARED}}/{{self.user.name}}"

    def make_preexec_fn(self, name):
        become, home = set_user_setuid(SHARED, chdir=False), self.home()

        def preexec():
            become()
            os.makedirs(home, 0o700, exist_ok=True)
            os.chdir(home)

        return preexec

    def user_env(self, env):
        env.update(USER=SHARED, HOME=self.home(), SHELL="/bin/bash")
        return env


c.JupyterHub.spawner_class = OneAccountSpawner
c.Spawner.cmd = ["{bin}/jupyterhub-singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {{"PATH": "{bin}:/usr/bin:/bin", "LANG": "C.UTF-8", "JUPYTER_CONFIG_PATH": "{student_config}"}}
c.Spawner.start_timeout = 90
c.Spawner.http_timeout = 90
# the token each server gets may use the exchange (the user role below lets every student)
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server",
                                 "access:services!service=gradekit-exchange"]
NOTEBOOK7 = {{"{nb7}"}}


def pre_spawn_hook(spawner):
    if spawner.user.name in NOTEBOOK7:
        spawner.default_url = "/tree"


c.Spawner.pre_spawn_hook = pre_spawn_hook

c.JupyterHub.custom_scopes = {{"{scope}": {{"description": "teaches {course}"}}}}
c.JupyterHub.load_roles = [
    {{"name": "{role}", "services": ["gradekit"], "scopes": ["{scope}", "access:services!service=gradekit-exchange"]}},
    {{"name": "user", "scopes": ["self", "access:services!service=gradekit-exchange"]}},
]
c.JupyterHub.services = [
    {{"name": "gradekit-exchange", "url": "http://127.0.0.1:{service_port}",
      "command": ["{gradekit}", "hub-exchange", "--course-id", "{course}", "--store", "{store}"],
      "environment": {{"PATH": "{venv_bin}:/usr/bin:/bin"}}}},
    {{"name": "gradekit", "api_token": "{course_token}",
      "command": ["{gradekit}", "--course", "{course_root}", "serve", "{assignment}"], "cwd": "{course_root}",
      "environment": {{"PATH": "{venv_bin}:/usr/bin:/bin", "GRADEKIT_SECRET": "{secret}"}}}},
]
'''


class HubStudent(tj.Student):
    """tests/handout/test_jupyterhub.py's student, whose server is the shared account's, in a home of its own."""

    def __init__(self, browser, x, name: str, ui: str):
        super().__init__(browser, x, name, ui)
        self.root = Path("/home") / SHARED / name
        self.folder = self.root / A

    def submit(self) -> float:
        self.to_assignments()
        before = self.x.handins(self.name)
        self.panel.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
        started = time.monotonic()
        while self.x.handins(self.name) <= before:
            assert time.monotonic() < started + 60, "the hand-in never reached the hub exchange"
            time.sleep(0.1)
        self.shot(self.page, "submitted")
        return started


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    reason = unix_users.unavailable() or hubs.unavailable()
    if not reason and not Path(tj.CHROMIUM).exists():
        reason = "needs chromium (make)"
    if reason:
        pytest.skip(reason)
    pytest.importorskip("playwright.sync_api")
    (shared,) = unix_users.create([SHARED])
    base = Path("/tmp") / f"gk-hubx-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    h = None
    try:
        course = CourseDir.create(tmp_path_factory.mktemp("hubx") / "course", (LAB, NB7))
        (course.root / "languages.csv").write_text(f"student_id,language\n{NB7},zh\n")
        port, hub_port, api_port, service_port = hubs.free_ports(4)
        service_url = f"http://127.0.0.1:{port}/services/gradekit-exchange/"
        course_token = secrets.token_hex(16)
        (course.root / ".gradekit").mkdir(exist_ok=True)
        (course.root / ".gradekit" / "hub-token").write_text(course_token)
        with open(course.root / "nbgrader_config.py", "a") as fh:
            fh.write(f'\nc.Gradekit.exchange = "hub"\nc.GradekitHubExchange.url = "{service_url}"\n'
                     'c.GradekitHubExchange.token_file = ".gradekit/hub-token"\n')
        course.generate()
        due = dt.datetime.now(dt.UTC) + dt.timedelta(days=7)
        course.run(str(VENV_BIN / "nbgrader"), "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
        shows = SHOWS.bind(course, due)
        student_config = base / "student-config"
        course.run(GRADEKIT, "student-config", "--dir", str(student_config))
        store = base / "exchange-store"
        config = HUB_CONFIG.format(
            port=port, hub_port=hub_port, api_port=api_port, chp=hubs.CHP, state=base / "hub", password=PASSWORD,
            users={LAB, NB7}, shared=SHARED, bin=unix_users.STUDENT_BIN, student_config=student_config, nb7=NB7,
            scope=instructor_scope(COURSE), role=instructor_role(COURSE), course=COURSE, service_port=service_port,
            gradekit=GRADEKIT, store=store, venv_bin=VENV_BIN, course_token=course_token, course_root=course.root,
            assignment=A, secret=SECRET)
        tj.ARTIFACTS.mkdir(exist_ok=True)
        for old in tj.ARTIFACTS.glob(f"hub-{LAB}-*.png"):
            old.unlink()
        h = hubs.Hub(base / "hub", config)
        h.start()
        h.wait_for("hub exchange of")
        h.wait_for("serving self_attention")
        h.url = f"http://127.0.0.1:{port}"
        course.run(GRADEKIT, "release", A)     # into the hub exchange, with the course's token

        def handins(user: str) -> int:
            import urllib.request

            request = urllib.request.Request(f"{service_url}api/{COURSE}/listing/{user}",
                                             headers={"Authorization": f"token {course_token}"})
            with urllib.request.urlopen(request, timeout=30) as answer:
                return sum(len(a["handins"]) for a in json.loads(answer.read())["assignments"])

        yield SimpleNamespace(hub=h, course=course, store=store, shared=shared, handins=handins,
                              student_config=student_config, shows=shows)
    finally:
        if h is not None:
            h.close()
        unix_users.remove([SHARED])
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(hub):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=tj.CHROMIUM, headless=True,
                              args=["--no-sandbox", "--disable-gpu", "--no-first-run",
                                    "--disable-background-networking", "--disable-component-update"])
        yield b
        b.close()


def test_a_student_in_jupyterlab_on_a_shared_account_reads_a_named_mistake_and_fixes_it(hub, browser, monkeypatch):
    monkeypatch.setattr(tj, "Student", HubStudent)
    timings = tj._journey(browser, hub, LAB, "lab")
    print(json.dumps(timings))
    hub.hub.wait_for(tj.graded_line(hub, LAB, 2))


def test_a_student_in_notebook7_on_the_same_account_does_the_same_in_chinese(hub, browser, monkeypatch):
    monkeypatch.setattr(tj, "Student", HubStudent)
    timings = tj._journey(browser, hub, NB7, "notebook7")
    print(json.dumps(timings))
    hub.hub.wait_for(tj.graded_line(hub, NB7, 2))


def test_the_shared_account_reads_neither_the_exchange_nor_the_course(hub):
    assert hub.handins(NB7) >= 2, "run the journeys first"
    course = hub.course.root
    targets = [hub.store, hub.store / "exchange.sqlite", *sorted((hub.store / "blobs").glob("*"))[:3],
               course / "source" / A, course / "solutions" / A / "reference.py", course / "gradebook.db",
               course / ".gradekit" / "hub-token", course / "autograder" / A]
    assert len(targets) > 8
    for target in targets:
        for verb in ("cat", "ls") if target.is_dir() else ("cat",):
            assert not hub.shared.may(verb, f"'{target}'"), f"{SHARED} can {verb} {target}"


def test_doctor_checks_the_hub_deployment(hub):
    ok = hub.course.run(GRADEKIT, "doctor", "--student-account", SHARED, check=False)
    assert ok.returncode == 0 and "nothing to fix (the course, the hub exchange, the account gkjovyan" in ok.stdout, \
        ok.stdout + ok.stderr
    # the store opened to every account: named, with its fix; closed again: quiet
    os.chmod(hub.store, 0o755)
    os.chmod(hub.store / "exchange.sqlite", 0o644)
    try:
        leak = hub.course.run(GRADEKIT, "doctor", "--student-account", SHARED, check=False)
        assert leak.returncode == 1 and f"the students' account {SHARED} can read {hub.store}" in leak.stdout, \
            leak.stdout
    finally:
        os.chmod(hub.store, 0o700)
        os.chmod(hub.store / "exchange.sqlite", 0o600)
    # a course whose token does not teach it: the scope named
    token = hub.course.root / ".gradekit" / "hub-token"
    kept = token.read_text()
    token.write_text(secrets.token_hex(16) + "\n")
    try:
        wrong = hub.course.run(GRADEKIT, "doctor", check=False)
        assert wrong.returncode == 1 and "the hub exchange:" in wrong.stdout and "fix:" in wrong.stdout, wrong.stdout
    finally:
        token.write_text(kept)
