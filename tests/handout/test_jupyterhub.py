"""A real JupyterHub course, end to end, in a browser (issue 20).

JupyterHub from PyPI with configurable-http-proxy from npm (``make deploy``
puts both in /opt/gradekit), on loopback; PAM, the authenticator a real course
uses, with passwords set for the test's accounts; the local-process spawner,
with two real Unix students and an instructor; ``gradekit serve`` as a service
the hub manages. The students' servers read the folder ``gradekit
student-config --dir`` writes (their ``JUPYTER_CONFIG_PATH``, set by the
spawner for students only): nbgrader's exchange settings, gradekit's exchange
classes and Validate, and none of the instructor's panels.

Playwright, driving Debian's chromium, then does what a student does: log in,
open the Assignments tab, fetch, see their own numbers, write their code with a
subtle mistake that passes the visible checks, run them, Validate and Submit;
seconds later fetch the feedback and read the named mistake on the page; fix
it, hand in again and read full marks on attempt 2. The first student works in
JupyterLab in English, the second in Notebook 7 in Chinese. Every step leaves a
screenshot in tests/artifacts/ (hub-*.png). The test fails on a console error on
a feedback page, on a fetch that does not finish, and when a student can read
another's files or the course's.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import unix_users
from conftest import ASSIGNMENT, NOTEBOOK, SECRET, VENV_BIN, CourseDir, known_sources
from processes import Tracker

from gradekit.handout import layout

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A, NB = ASSIGNMENT, NOTEBOOK
LAB, NB7, TEACHER = "gkada", "gkwei", "gkprof"
PASSWORD = "attention-is-all-2026"
CHROMIUM = "/usr/bin/chromium"
CHP = unix_users.DEPLOY / "node_modules" / ".bin" / "configurable-http-proxy"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
GRADEKIT = str(VENV_BIN / "gradekit")
FEEDBACK_WITHIN = 30  # seconds from Submit to feedback on the page: bench/serve.py measures the real figure

# one subtle mistake each, caught by the hidden graders and by none of the visible checks
MISTAKES = {
    LAB: ("mistakes/softmax_global_max", "subtracted the maximum of the whole array instead of the maximum along"),
    NB7: ("mistakes/weighted_sum_renormalises", "在 weighted_sum 里又把权重归一化了一次"),
}


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


HUB_CONFIG = '''\
# JupyterHub for one course on one machine: PAM, local processes, gradekit serve as a service.
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

c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = {users!r}
c.Authenticator.admin_users = {{"{teacher}"}}

c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = ["{bin}/jupyterhub-singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {{"PATH": "{bin}:/usr/bin:/bin", "LANG": "C.UTF-8"}}
c.Spawner.start_timeout = 90
c.Spawner.http_timeout = 90

INSTRUCTORS = {{"{teacher}"}}
NOTEBOOK7 = {{"{nb7}"}}   # this test's choice: one student in Notebook 7, the others in JupyterLab


def pre_spawn_hook(spawner):
    name = spawner.user.name
    if name not in INSTRUCTORS:   # students: the course's settings, gradekit's Validate, no instructor panels
        spawner.environment = {{**spawner.environment, "JUPYTER_CONFIG_PATH": "{student_config}"}}
    if name in NOTEBOOK7:
        spawner.default_url = "/tree"


c.Spawner.pre_spawn_hook = pre_spawn_hook

c.JupyterHub.services = [{{
    "name": "gradekit",
    "command": ["{gradekit}", "--course", "{course}", "serve", "{assignment}"],
    "cwd": "{course}",
    "environment": {{"PATH": "{venv_bin}:/usr/bin:/bin", "GRADEKIT_SECRET": "{secret}"}},
}}]
'''


class Hub:
    """``jupyterhub`` as a child process; its log (and the service's, which the hub passes on) in a file."""

    def __init__(self, base: Path, course: CourseDir, student_config: Path):
        self.state = base / "hub"
        self.state.mkdir(mode=0o700)
        port, hub_port, api_port = _free_ports(3)
        self.url = f"http://127.0.0.1:{port}"
        config = self.state / "jupyterhub_config.py"
        config.write_text(HUB_CONFIG.format(
            port=port, hub_port=hub_port, api_port=api_port, chp=CHP, state=self.state,
            users={LAB, NB7, TEACHER}, teacher=TEACHER, nb7=NB7, bin=unix_users.STUDENT_BIN,
            student_config=student_config, gradekit=GRADEKIT, course=course.root, assignment=A,
            venv_bin=VENV_BIN, secret=SECRET))
        self.log = self.state / "hub.log"
        self.tracker = Tracker(f"hub-{os.getpid()}", "gkhub")
        env = {"PATH": f"{unix_users.STUDENT_BIN}:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/root"}
        self.proc = subprocess.Popen([str(unix_users.STUDENT_BIN / "jupyterhub"), "-f", str(config)],
                                     cwd=self.state, env=env, stdout=open(self.log, "w"),
                                     stderr=subprocess.STDOUT, preexec_fn=self.tracker.join)
        self.wait_for(r"JupyterHub is now running", timeout=90)
        self.wait_for(r"serving self_attention", timeout=90)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 60) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.findall(f".*{pattern}.*", self.text())
            if len(found) >= count:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"no {count} x {pattern!r} in the hub's log:\n" + self.text()[-4000:])

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.tracker.close()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    reason = unix_users.unavailable()
    for needed, why in ((unix_users.STUDENT_BIN / "jupyterhub", "jupyterhub (make deploy)"),
                        (CHP, "configurable-http-proxy (make deploy)"), (Path(CHROMIUM), "chromium (make)")):
        if not reason and not needed.exists():
            reason = f"needs {why}"
    if reason:
        pytest.skip(reason)
    pytest.importorskip("playwright.sync_api")
    accounts = {a.name: a for a in unix_users.create([LAB, NB7, TEACHER], password=PASSWORD)}
    base = Path("/tmp") / f"gk-hub-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    hub = None
    try:
        course = CourseDir.create(tmp_path_factory.mktemp("hub") / "course", (LAB, NB7))
        (course.root / "languages.csv").write_text(f"student_id,language\n{NB7},zh\n")
        with open(course.root / "nbgrader_config.py", "a") as fh:
            fh.write(f'\nc.Exchange.root = "{base / "exchange"}"\n')
        course.generate()
        course.run(GRADEKIT, "release", A)
        due = dt.datetime.now(dt.UTC) + dt.timedelta(days=7)
        course.run(str(VENV_BIN / "nbgrader"), "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
        student_config = base / "student-config"
        course.run(GRADEKIT, "student-config", "--dir", str(student_config))
        ARTIFACTS.mkdir(exist_ok=True)
        for old in ARTIFACTS.glob("hub-*.png"):
            old.unlink()
        hub = Hub(base, course, student_config)
        yield SimpleNamespace(hub=hub, course=course, base=base, exchange=base / "exchange" / "transformers101",
                              student_config=student_config, **accounts)
    finally:
        if hub is not None:
            hub.stop()
        unix_users.remove([LAB, NB7, TEACHER])
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(hub):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--no-first-run",
                                          "--disable-background-networking", "--disable-component-update"])
        yield browser
        browser.close()


# -- a student at the browser ------------------------------------------------------------------------------


class Student:
    """One account at the hub in its own browser context; ``ui`` is "lab" or "notebook7"."""

    def __init__(self, browser, x, name: str, ui: str):
        self.x, self.name, self.ui = x, name, ui
        self.context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")
        self.page = self.context.new_page()
        self.shots = 0
        self.timings: dict[str, float] = {}
        self.root = Path("/home") / name   # the server's root folder (its home)
        self.folder = self.root / A

    def shot(self, page, step: str) -> None:
        self.shots += 1
        page.screenshot(path=str(ARTIFACTS / f"hub-{self.name}-{self.shots:02d}-{step}.png"))

    def login(self) -> None:
        page = self.page
        page.goto(f"{self.x.hub.url}/hub/login")
        page.fill("#username_input", self.name)
        page.fill("#password_input", PASSWORD)
        self.shot(page, "login")
        started = time.monotonic()
        page.click("#login_submit")
        page.wait_for_url(re.compile(rf"/user/{self.name}/(lab|tree)"), timeout=120_000)
        page.wait_for_selector(".jp-DirListing-content, .jp-Launcher", timeout=90_000)
        self.timings["login_to_server_s"] = round(time.monotonic() - started, 2)
        for button in page.locator(".jp-toast-button").filter(has_text=re.compile("^No$")).all():
            button.click(timeout=2000)

    def nbgrader_menu(self) -> list[str]:
        page = self.page
        page.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile("^Nbgrader$")).click()
        menu = page.locator("#jp-mainmenu-nbgrader")
        menu.wait_for()
        labels = [s.strip() for s in menu.locator(".lm-Menu-item:visible .lm-Menu-itemLabel").all_inner_texts()]
        return labels

    def open_assignments(self) -> None:
        labels = self.nbgrader_menu()
        assert "Formgrader" not in labels and "Course List" not in labels, labels    # the instructor's tools
        self.page.locator("#jp-mainmenu-nbgrader .lm-Menu-item[data-command='nbgrader:open-assignment-list']").click()
        self.panel = self.page.locator("#assignments")
        self.panel.locator("#released_assignments_list .list_item").filter(has_text=A).first.wait_for(timeout=60_000)
        assert self.page.locator(".jp-SideBar .lm-TabBar-tab[title*='Create Assignment']").count() == 0
        self.shot(self.page, "assignments")

    def fetch(self) -> None:
        started = time.monotonic()
        self.panel.locator("#released_assignments_list").get_by_role("button", name="Fetch").click()
        fetched = self.panel.locator("#fetched_assignments_list")
        fetched.get_by_role("button", name="Submit").wait_for(timeout=60_000)
        self.timings["fetch_s"] = round(time.monotonic() - started, 2)
        fetched.locator("a.assignment-notebooks-link").first.click()
        fetched.locator(".nested_list_item").filter(has_text=NB).first.wait_for(timeout=30_000)
        self.shot(self.page, "fetched")

    def to_assignments(self) -> None:
        if self.ui == "lab":
            self.page.locator(".lm-TabBar-tab").filter(has_text="Assignments").first.click()
        else:
            self.page.bring_to_front()

    def to_notebook(self) -> None:
        if self.ui == "lab":
            self.page.locator(".lm-TabBar-tab").filter(has_text=f"{NB}.ipynb").first.click()
        else:
            self.nb.bring_to_front()

    def validate(self) -> str:
        """Validate from the Assignments tab; the dialog's text."""
        self.to_assignments()
        item = self.panel.locator("#fetched_assignments_list .nested_list_item").filter(has_text=NB).first
        item.get_by_role("button", name="Validate").click()
        dialog = self.page.locator(".jp-Dialog")
        dialog.locator(".jp-Dialog-header").filter(has_text="Validation Results").wait_for(timeout=120_000)
        text = dialog.inner_text()
        self.shot(self.page, "validate")
        dialog.get_by_role("button", name=re.compile("^ok$", re.I)).click()
        dialog.wait_for(state="detached")
        return text

    def open_notebook(self):
        link = self.panel.locator("#fetched_assignments_list .nested_list_item a").filter(has_text=NB).first
        if self.ui == "lab":
            link.click()
            self.nb = self.page
        else:  # Notebook 7 opens the notebook in a page of its own
            with self.context.expect_page() as new:
                link.click()
            self.nb = new.value
        self.nb.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        self.nb.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle'], "
                                  ".jp-NotebookKernelStatus-idle, .jp-Toolbar-kernelStatus", timeout=90_000)
        self.shot(self.nb, "notebook")
        return self.nb

    def cell(self, index: int):
        return self.nb.locator(".jp-Notebook .jp-Cell").nth(index)

    def write(self, index: int, code: str) -> None:
        """Type ``code`` over cell ``index``'s source, as a student would replace a stub."""
        editor = self.cell(index).locator(".cm-content")
        editor.scroll_into_view_if_needed()
        editor.click()
        self.nb.keyboard.press("Control+a")
        self.nb.keyboard.press("Delete")
        self.nb.keyboard.insert_text(code)    # one input event: no auto-indent or closing brackets to fight
        self.nb.keyboard.press("Escape")

    def save(self, marker: str) -> None:
        self.nb.locator(".jp-NotebookPanel-toolbar [data-command='docmanager:save']").first.click()
        path = self.folder / f"{NB}.ipynb"
        deadline = time.monotonic() + 30
        while marker not in path.read_text():
            assert time.monotonic() < deadline, f"the edit never reached {path}"
            time.sleep(0.1)

    def run_all(self) -> list[str]:
        """Run every cell (the visible checks among them), save; the errors the saved outputs hold.
        (The Lab renders only the cells in view: the notebook on disk is read instead of the page.)"""
        nb = self.nb
        nb.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile("^Run$")).click()
        nb.locator(".lm-Menu-item:visible").filter(has_text=re.compile("^Run All Cells")).first.click()
        path = self.folder / f"{NB}.ipynb"
        deadline = time.monotonic() + 120
        while True:   # every code cell run, or an error and Run All stopped there
            nb.wait_for_timeout(1000)
            nb.locator(".jp-NotebookPanel-toolbar [data-command='docmanager:save']").first.click()
            nb.wait_for_timeout(300)
            try:
                saved = nbformat.read(str(path), as_version=4)
            except Exception:   # caught while being written
                continue
            code = [c for c in saved.cells if c.cell_type == "code"]
            errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
            busy = nb.locator(".jp-Notebook-ExecutionIndicator[data-status='busy']").count()
            if not busy and (errors or all(c.get("execution_count") for c in code)):
                break
            assert time.monotonic() < deadline, "the cells never finished running"
        self.shot(nb, "ran")
        return [f"{o['ename']}: {o['evalue']}" for o in errors]

    def submit(self) -> float:
        self.to_assignments()
        before = len(list(self.x.exchange.glob(f"inbound/{self.name}+{A}+*"))) if os.access(
            self.x.exchange / "inbound", os.R_OK) else 0
        self.panel.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
        started = time.monotonic()
        deadline = started + 60
        while len(list(self.x.exchange.glob(f"inbound/{self.name}+{A}+*"))) <= before:
            assert time.monotonic() < deadline, "the submission never reached the exchange"
            time.sleep(0.1)
        self.shot(self.page, "submitted")
        return started

    def fetch_feedback(self, submitted_at: float, attempt: int) -> Path:
        """Refresh until the feedback is there to fetch, Fetch Feedback, and return the new page's file."""
        panel = self.panel
        submitted = panel.locator("#submitted_assignments_list")
        before = set(self.folder.glob("feedback/*/*.html"))
        deadline = submitted_at + FEEDBACK_WITHIN
        while True:
            panel.locator("#refresh_assignments_list").click()
            self.page.wait_for_timeout(700)
            rows = submitted.locator(".list_item").filter(has_text="feedback available to fetch")
            if rows.count():
                break
            assert time.monotonic() < deadline, f"attempt {attempt}: no feedback within {FEEDBACK_WITHIN} s"
        self.shot(self.page, f"feedback-available-{attempt}")
        rows.first.get_by_role("button", name="Fetch Feedback").click()
        while not set(self.folder.glob("feedback/*/*.html")) - before:
            assert time.monotonic() < deadline + 30, f"attempt {attempt}: Fetch Feedback never finished"
            time.sleep(0.1)
        self.timings[f"submit_to_feedback_{attempt}_s"] = round(time.monotonic() - submitted_at, 2)
        (page,) = set(self.folder.glob("feedback/*/*.html")) - before
        self.shot(self.page, f"feedback-fetched-{attempt}")
        return page

    def read_feedback(self, path: Path, attempt: int, named: str = "") -> str:
        """The feedback page as a page of its own (the server's /files/), and in the Lab's viewer; its text.
        A console error on it fails the test."""
        rel = path.relative_to(self.root)
        page = self.context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        response = page.goto(f"{self.x.hub.url}/user/{self.name}/files/{rel}")
        assert response is not None and response.ok, response
        page.wait_for_load_state("networkidle")
        text = page.locator("body").inner_text()
        self.shot(page, f"feedback-page-{attempt}")
        if named:   # the exercise whose mistake the page names, on its own
            self.shots += 1
            page.locator("section.card").filter(has_text=named).first.screenshot(
                path=str(ARTIFACTS / f"hub-{self.name}-{self.shots:02d}-named-{attempt}.png"))
        assert not errors, f"console errors on the feedback page: {errors}"
        title = page.title()
        page.close()
        assert (f"第 {attempt} 次" if self.name == NB7 else f"attempt {attempt}") in title, title
        return text

    def close(self) -> None:
        self.context.close()


def _own_numbers(x, who: str) -> str:
    """The line of ``who``'s release that gives their tokens (X = ...)."""
    nb = nbformat.read(str(x.course.release_path(who)), as_version=4)
    setup = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup")
    return next(line for line in setup.source.splitlines() if line.startswith("X = ")).strip()


def _journey(browser, x, name: str, ui: str) -> dict:
    """Log in, fetch, a subtle mistake, the visible checks, Validate, Submit, feedback; the fix, attempt 2."""
    s = Student(browser, x, name, ui)
    other = NB7 if name == LAB else LAB
    try:
        s.login()
        s.open_assignments()
        s.fetch()
        untouched = s.validate()
        lines = [line for line in untouched.splitlines() if line.strip()]
        assert "Traceback" not in untouched and "NotImplementedError()" in untouched, untouched
        todo = "还没完成" if name == NB7 else "still to do"
        assert sum(todo in line for line in lines) >= 5, lines     # one line for each cell still to do

        nb = s.open_notebook()
        setup = s.cell(1).inner_text()
        own = _own_numbers(x, name)
        numbers = re.findall(r"-?\d+\.\d+", own)
        assert numbers and all(n in setup for n in numbers[:4]), (own, setup[:500])   # on the page
        assert _own_numbers(x, other) != own                       # their own numbers, not a classmate's
        s.shot(nb, "own-numbers")

        key = x.course.answer_key(name)
        stubs = {c.metadata["nbgrader"]["grade_id"]: i for i, c in enumerate(key.cells)
                 if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"}
        mistake_file, named = MISTAKES[name]
        mistake = known_sources(mistake_file)
        for gid, index in stubs.items():
            code = mistake.get(gid, key.cells[index].source)
            s.write(index, code + ("\n# my first try" if gid in mistake else ""))
        s.shot(nb, "written")
        s.save("# my first try")
        errors = s.run_all()
        assert not errors, f"the visible checks failed on a mistake they cannot see: {errors[:2]}"
        assert "Success! Your notebook passes all the tests." in s.validate()
        submitted = s.submit()
        page = s.fetch_feedback(submitted, 1)
        text = s.read_feedback(page, 1, named)
        assert named in text, text[:3000]
        score = re.search(r"(?:Score:|得分：)\s*(\d+(?:\.\d+)?) / (\d+)", text)
        assert score and float(score.group(1)) < float(score.group(2)), text[:2000]

        # the fix, and attempt 2
        (gid,) = mistake
        s.to_notebook()
        s.write(stubs[gid], key.cells[stubs[gid]].source + "\n# fixed")
        s.save("# fixed")
        time.sleep(1.1)   # nbgrader names a hand-in by the second
        submitted = s.submit()
        page = s.fetch_feedback(submitted, 2)
        text = s.read_feedback(page, 2)
        assert named not in text
        score = re.search(r"(?:Score:|得分：)\s*(\d+(?:\.\d+)?) / (\d+)", text)
        assert score and score.group(1) == score.group(2), text[:2000]
        assert ("attempt 2" in text) if name == LAB else ("第 2 次" in text), text[:2000]
        return s.timings
    finally:
        s.close()


def test_a_student_in_jupyterlab_reads_a_named_mistake_and_fixes_it(hub, browser):
    timings = _journey(browser, hub, LAB, "lab")
    print(json.dumps(timings))
    hub.hub.wait_for(rf"graded {LAB} {A} attempt 2: (\d+)/\1")


def test_a_student_in_notebook7_does_the_same_in_chinese(hub, browser):
    timings = _journey(browser, hub, NB7, "notebook7")
    print(json.dumps(timings))
    hub.hub.wait_for(rf"graded {NB7} {A} attempt 2: (\d+)/\1")


def test_the_instructor_has_the_instructor_tools(hub, browser):
    s = Student(browser, hub, TEACHER, "lab")
    try:
        s.login()
        labels = s.nbgrader_menu()
        s.shot(s.page, "instructor-menu")
        assert "Formgrader" in labels and "Assignment List" in labels, labels
    finally:
        s.close()


def test_no_student_reads_a_classmate_s_work_or_the_course(hub):
    x = hub
    course = x.course.root
    lab, nb7 = x.gkada, x.gkwei
    assert list(x.exchange.glob(f"inbound/{NB7}+{A}+*")), "run the journeys first"
    theirs = sorted(x.exchange.glob(f"inbound/{NB7}+{A}+*"))[-1]
    targets = [course / "source" / A / f"{NB}.ipynb", course / "solutions" / A / "reference.py",
               course / "autograder" / A / "test_softmax.py", course / "gradebook.db", course / ".gradekit",
               course / "submitted" / NB7 / A / f"{NB}.ipynb", theirs / f"{NB}.ipynb",
               Path("/home") / NB7 / A / f"{NB}.ipynb"]
    targets += sorted((Path("/home") / NB7 / A / "feedback").glob("*/*.html"))
    uid = pwd.getpwnam(NB7).pw_uid   # the exchange's pages released to the classmate (an ACL entry, or theirs)
    pages = [p for p in x.exchange.glob("feedback/*.html") if uid in layout.acl_readers(p) or p.stat().st_uid == uid]
    assert len(pages) >= 2, sorted(x.exchange.glob("feedback/*.html"))
    targets += pages
    for target in targets:
        # a file's name is no secret (stat needs only the folders' x): its contents, and a folder's listing, are
        for verb in ("cat", "ls") if target.is_dir() else ("cat",):
            assert not lab.may(verb, f"'{target}'"), f"{LAB} can {verb} {target}"
    assert not lab.may("ls", f"'{x.exchange / 'inbound'}'"), "the inbound can be listed"
    assert not lab.may("ls", f"'{x.exchange / 'outbound' / A}'"), "the releases can be listed"
    # and their own: released notebook, submission and feedback pages are theirs to read
    assert lab.may("cat", f"'{Path('/home') / LAB / A / (NB + '.ipynb')}'")
    mine = sorted((Path("/home") / LAB / A / "feedback").glob("*/*.html"))
    assert len(mine) >= 2 and all(lab.may("cat", f"'{p}'") for p in mine)
    assert not nb7.may("cat", f"'{mine[-1]}'")


def test_doctor_is_clean_on_this_deployment(hub):
    proc = hub.course.run(GRADEKIT, "doctor", check=False)
    assert proc.returncode == 0 and "nothing to fix" in proc.stdout, proc.stdout + proc.stderr
