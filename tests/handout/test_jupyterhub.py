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

import csv
import datetime as dt
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin

import hubs
import nbformat
import pytest
import unix_users
from conftest import ASSIGNMENT, CHROMIUM, NOTEBOOK, SECRET, VENV_BIN, CourseDir, known_sources

from gradekit.exchange.filesystem import layout

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A, NB = ASSIGNMENT, NOTEBOOK
LAB, NB7, TEACHER = "gkada", "gkwei", "gkprof"
PASSWORD = "attention-is-all-2026"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
GRADEKIT = str(VENV_BIN / "gradekit")
FEEDBACK_WITHIN = 30  # seconds from Submit to feedback on the page: bench/serve.py measures the real figure

# one subtle mistake for each journey (by its interface), caught by the hidden graders and by none of the visible
# checks; the Notebook 7 journey's student reads Chinese (the course's languages.csv)
MISTAKES = {
    "lab": ("mistakes/softmax_global_max", "subtracted the maximum of the whole array instead of the maximum along"),
    "notebook7": ("mistakes/weighted_sum_renormalises", "在 weighted_sum 里又把权重归一化了一次"),
}


# ... as the class report names them (in English, the instructor's): the QA set's names lines
REPORTED = {"lab": "maximum of the whole array", "notebook7": "re-normalised the weights"}

STAFF = "gkstaff"


@dataclass(frozen=True)
class Shows:
    """What a journey's assignment declares it shows before the due date: its [serve] settings, written
    to source/<assignment>/assignment.toml, and asserted on every feedback page of the journey."""

    held: str          # a test cell hidden until the due date (hidden_until_due)
    attempts: int      # graded hand-ins per student
    counts: str        # the attempt that counts: "last" or "best"

    def settings(self) -> str:
        return (f'[serve]\nbefore_due = "full"\nhidden_until_due = ["{self.held}"]\nshown_before_due = []\n'
                f'attempts = {self.attempts}\ncounts = "{self.counts}"\n')

    def bind(self, course, due: dt.datetime) -> SimpleNamespace:
        """These settings written into ``course``; the page's figures they imply."""
        course.write_settings(A, self.settings())
        settings = course.course.settings_of(A)
        assert (settings.hidden_until_due, settings.attempts, settings.counts) == ((self.held,), self.attempts,
                                                                                   self.counts)
        nb = course.release(course.students()[0])
        points = {c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"].get("points", 0))
                  for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}
        assert self.held in points
        return SimpleNamespace(declared=self, until=f"{due:%Y-%m-%d %H:%M} UTC", held_points=points[self.held],
                               possible=sum(points.values()))


# this journey: full feedback at once but for one code exercise, which waits for the due date; five
# graded attempts, the last counts (tests/handout/test_hub_exchange.py declares its own)
SHOWS = Shows(held="test_kv_cache_decode", attempts=5, counts="last")


class Hub(hubs.Hub):
    """The course's hub, run from the jupyterhub_config.py `gradekit hub-config --write` wrote, as it is."""

    def __init__(self, folder: Path, port: int):
        super().__init__(folder / "test-state", folder / "jupyterhub_config.py",
                         env={"PATH": f"{unix_users.STUDENT_BIN}:/usr/bin:/bin", "HOME": "/root"})
        self.url = f"http://127.0.0.1:{port}"

    def start(self, ready: str = r"JupyterHub is now running", timeout: float = 90) -> None:
        super().start(ready, timeout)
        self.wait_for(r"serving self_attention", timeout=90)
        self.wait_for(r"grading self_attention of transformers101: open", timeout=60)
        self.wait_for(r"class reports of self_attention of transformers101: open", timeout=60)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    reason = unix_users.unavailable() or hubs.unavailable()
    if not reason and not Path(CHROMIUM).exists():
        reason = "needs chromium (make)"
    if reason:
        pytest.skip(reason)
    pytest.importorskip("playwright.sync_api")
    accounts = {a.name: a for a in unix_users.create([LAB, NB7, TEACHER], password=PASSWORD)}
    for name in (LAB, NB7, TEACHER):   # Debian's useradd -m: 0755, as a newcomer's machine has them
        os.chmod(Path("/home") / name, 0o755)
    unix_users.claim([STAFF])
    subprocess.run(["groupdel", STAFF], capture_output=True)
    subprocess.run(["groupadd", STAFF], check=True, capture_output=True)
    subprocess.run(["usermod", "-aG", STAFF, TEACHER], check=True, capture_output=True)
    base = Path("/tmp") / f"gk-hub-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    hub = None
    try:
        course = CourseDir.create(base / "course", (LAB, NB7))
        os.chmod(course.root, 0o700)
        (course.root / "languages.csv").write_text(f"student_id,language\n{NB7},zh\n")
        with open(course.root / "nbgrader_config.py", "a") as fh:
            fh.write(f'\nc.Exchange.root = "{base / "exchange"}"\nc.Gradekit.staff_group = "{STAFF}"\n')
        course.generate()
        (course.root / ".gradekit" / "secret").write_text(SECRET)   # the services read the course's own secret
        os.chmod(course.root / ".gradekit" / "secret", 0o600)
        released = course.run(GRADEKIT, "release", A).stdout
        # each variant in the folder of its own account (no "(2 student)")
        assert released == (f"{A}: released 2 personal variants to the nbgrader exchange (2 readable by their "
                            "student alone)\n"), released
        due = dt.datetime.now(dt.UTC) + dt.timedelta(days=7)
        course.run(str(VENV_BIN / "nbgrader"), "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
        shows = SHOWS.bind(course, due)
        # the staff group reads and writes the course (Formgrader as the instructor); others nothing
        subprocess.run(["setfacl", "-R", "-m", f"g:{STAFF}:rwX,d:g:{STAFF}:rwX", str(course.root)], check=True)
        port, hub_port, api_port, grade_port, report_port = hubs.free_ports(5)
        folder = base / "jupyterhub"
        written = course.run(GRADEKIT, "hub-config", "--write", "--dir", str(folder), "--deploy", str(unix_users.DEPLOY),
                             "--instructors", TEACHER, "--port", str(port), "--hub-port", str(hub_port),
                             "--proxy-api-port", str(api_port), "--grade-port", str(grade_port),
                             "--report-port", str(report_port), "--public-url", f"http://127.0.0.1:{port}/")
        with open(folder / "interfaces.csv", "a") as fh:   # this test's choice: one student in Notebook 7
            fh.write(f"{NB7},notebook\n")
        ARTIFACTS.mkdir(exist_ok=True)
        for old in ARTIFACTS.glob("hub-*.png"):
            old.unlink()
        hub = Hub(folder, port)
        hub.start()
        yield SimpleNamespace(hub=hub, course=course, base=base, exchange=base / "exchange" / "transformers101",
                              folder=folder, printed=written.stdout, shows=shows, **accounts)
    finally:
        if hub is not None:
            hub.close()
        unix_users.remove([LAB, NB7, TEACHER])
        subprocess.run(["groupdel", STAFF], capture_output=True)
        unix_users.release([STAFF])
        shutil.rmtree(base, ignore_errors=True)


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

    def login(self, home: bool = False) -> None:
        """The hub's login form, then the student's interface; ``home``: the hub's home page instead (a
        session at the hub, and no interface loaded: what a test of the hub's own pages needs)."""
        page = self.page
        page.goto(f"{self.x.hub.url}/hub/login" + ("?next=%2Fhub%2Fhome" if home else ""))
        page.fill("#username_input", self.name)
        page.fill("#password_input", getattr(self.x, "passwords", {}).get(self.name, PASSWORD))
        self.shot(page, "login")
        started = time.monotonic()
        page.click("#login_submit")
        if home:
            page.wait_for_url(re.compile(r"/hub/home"), timeout=60_000)
            return
        page.wait_for_url(re.compile(rf"/user/{self.name}/{'tree' if self.ui == 'notebook7' else 'lab'}"),
                          timeout=120_000)   # interfaces.csv's choice
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
        # the title names the hand-in by its number (every hand-in of a journey is graded: the k-th attempt)
        assert (f"提交编号 {attempt}" if reads_chinese(self.x, self.name) else f"hand-in {attempt}") in title, title
        return text

    def duplicate(self, path: str) -> Path:
        """File ▸ Duplicate: the Lab's contents API copies the file beside it, as the menu does."""
        made = self.page.evaluate("""async (path) => {
            const base = location.pathname.split("/lab")[0];
            const xsrf = (document.cookie.split("; ").find((c) => c.startsWith("_xsrf=")) || "=").split("=")[1];
            const dir = path.split("/").slice(0, -1).join("/");
            const r = await fetch(base + "/api/contents/" + dir, {method: "POST",
              headers: {"Content-Type": "application/json", "X-XSRFToken": decodeURIComponent(xsrf)},
              body: JSON.stringify({copy_from: path})});
            return [r.status, (await r.json()).path];
        }""", path)
        assert made[0] == 201, made
        return Path("/home") / self.name / made[1]

    def close(self) -> None:
        self.context.close()


def reads_chinese(x, name: str) -> bool:
    """Whether ``name``'s pages are in Chinese: the course's languages.csv says so."""
    table = x.course.root / "languages.csv"
    rows = csv.DictReader(table.open(newline="")) if table.exists() else ()
    return any(r["student_id"] == name and r["language"].startswith("zh") for r in rows)


def _own_numbers(x, who: str) -> str:
    """The line of ``who``'s release that gives their tokens (X = ...)."""
    nb = nbformat.read(str(x.course.release_path(who)), as_version=4)
    setup = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup")
    return next(line for line in setup.source.splitlines() if line.startswith("X = ")).strip()


def _shown_score(x, name: str, text: str, attempt: int) -> tuple[float, float]:
    """What the journey's settings declare, read on an attempt's feedback page: the held test cell
    waits for the due date (its section and the summary say until when, and what it is worth), the
    score so far leaves it out, and the attempt is counted as declared. The score so far, of what."""
    shows, zh = x.shows, reads_chinese(x, name)
    declared = shows.declared
    if zh:
        waits = f"截止日期（{shows.until}）之后检查。"
        more = f"在截止日期（{shows.until}）后检查"
        so_far = re.search(r"目前得分：\s*(\d+(?:\.\d+)?) / (\d+(?:\.\d+)?)", text)
        counted = f"第 {attempt} 次评分" + (f"（共 {declared.attempts} 次）" if declared.attempts else "")
        counts = "计入成绩的是你最后一次评分的提交" if declared.counts == "last" else "计入成绩的是你最好的一次"
    else:
        waits = f"Checked after the due date ({shows.until})."
        points = f"{shows.held_points:g}"
        more = f"{points} more point{' is' if points == '1' else 's are'} checked after the due date ({shows.until})"
        so_far = re.search(r"Score so far: (\d+(?:\.\d+)?) / (\d+(?:\.\d+)?)", text)
        counted = f"attempt {attempt}" + (f" of {declared.attempts}" if declared.attempts else "")
        counts = "your last attempt counts" if declared.counts == "last" else "your best attempt counts"
    assert waits in text and more in text, text[:3000]
    assert counted in text and counts in text, text[:1500]
    assert so_far, text[:2000]
    assert float(so_far.group(2)) == shows.possible - shows.held_points, (so_far.group(0), shows)
    # the held cell's own section (its grade id the last place it is named): the wait, and none of its checks
    after = text[text.rindex(declared.held) + len(declared.held):].lstrip()
    assert after.startswith(waits), after[:300]
    return float(so_far.group(1)), float(so_far.group(2))


def _journey(browser, x, name: str, ui: str) -> dict:
    """Log in, fetch, a subtle mistake, the visible checks, Validate, Submit, feedback; the fix, attempt 2."""
    s = Student(browser, x, name, ui)
    other = next(n for n in x.course.students() if n != name)
    try:
        s.login()
        s.open_assignments()
        s.fetch()
        untouched = s.validate()
        lines = [line for line in untouched.splitlines() if line.strip()]
        assert "Traceback" not in untouched and "NotImplementedError()" in untouched, untouched
        todo = "还没完成" if reads_chinese(x, name) else "still to do"
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
        mistake_file, named = MISTAKES[ui]
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
        shown, of = _shown_score(x, name, text, 1)
        assert shown < of, text[:2000]

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
        shown, of = _shown_score(x, name, text, 2)
        assert shown == of, text[:2000]
        if ui == "lab":
            s.to_assignments()
            copy = s.duplicate(f"{A}/{NB}.ipynb")
            s.timings["duplicate"] = str(copy)
        return s.timings
    finally:
        s.close()


def graded_line(x, student: str, attempt: int) -> str:
    """The service's line for a fixed hand-in: the whole score (what the gradebook records), and beside
    it what the page shows until the due date and what waits, as the journey's settings declare."""
    held = x.shows.declared.held
    return (rf"graded {student} {A} attempt {attempt}: (\d+)/\1 \(it counts\).*; the page shows (\d+)/\1 until "
            rf"the due date, {A}/{held} \(\d+ points?\) hidden")


def test_a_student_in_jupyterlab_reads_a_named_mistake_and_fixes_it(hub, browser):
    timings = _journey(browser, hub, LAB, "lab")
    print(json.dumps(timings))
    hub.hub.wait_for(graded_line(hub, LAB, 2))


def test_a_student_in_notebook7_does_the_same_in_chinese(hub, browser):
    timings = _journey(browser, hub, NB7, "notebook7")
    print(json.dumps(timings))
    hub.hub.wait_for(graded_line(hub, NB7, 2))


def test_the_instructor_works_inside_the_hub_with_no_token(hub, browser):
    x = hub
    x.course.run(GRADEKIT, "feedback", A, check=False)   # the instructor's copies, which the report links to
    s = Student(browser, x, TEACHER, "lab")
    try:
        s.login()
        labels = s.nbgrader_menu()
        s.shot(s.page, "instructor-menu")
        assert "Formgrader" in labels and "Assignment List" in labels, labels
        page = s.context.new_page()
        # Formgrader opens the course (the instructor is no root: the staff group reads it)
        page.goto(f"{x.hub.url}/user/{TEACHER}/formgrader")
        try:
            page.locator("table td").filter(has_text=re.compile(f"^{A}$")).first.wait_for(timeout=60_000)
        except Exception:
            s.shot(page, "formgrader-failed")
            raise AssertionError("Formgrader lists no course: " + page.locator("body").inner_text()[:3000]) from None
        text = page.locator("body").inner_text()
        assert "does not exist" not in text and "No nbgrader_config" not in text, text[:2000]
        s.shot(page, "formgrader")
        # the grading page and the class report, through the hub's login: no token anywhere
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{x.hub.url}/services/gradekit-grade/")
        try:
            page.wait_for_selector("body[data-ready='1']", timeout=60_000)
        except Exception:
            s.shot(page, "grading-page-failed")
            raise AssertionError(f"the grading page at {page.url}: {errors} "
                                 + page.locator("body").inner_text()[:2000]) from None
        assert "token" not in page.url and page.url == f"{x.hub.url}/services/gradekit-grade/", page.url
        s.shot(page, "grading-page")
        page.goto(f"{x.hub.url}/services/gradekit-report/")
        page.get_by_role("link", name=A).click()
        page.wait_for_selector("#misconceptions", timeout=60_000)
        s.shot(page, "report")
        assert f"{A}" in page.title(), page.title()
        # both students fixed their mistake on attempt 2: the report still lists each, made on one attempt by
        # one student, who fixed it (the attempt that counts no longer has it) -- not "No mistake was named"
        rows = page.locator("#misconceptions table.mistakes tbody tr")
        listed = {}
        for i in range(rows.count()):
            row = rows.nth(i)
            listed[row.locator("td.mistake").inner_text().strip()] = tuple(
                row.locator(f"td[data-{k}]").get_attribute(f"data-{k}") for k in ("count", "attempts", "fixed"))
        for phrase in REPORTED.values():
            named = [m for m in listed if phrase in m]
            assert len(named) == 1, (phrase, listed)
            assert listed[named[0]] == ("1", "1", "1"), (named[0], listed[named[0]])
        assert "No mistake was named" not in page.locator("#misconceptions").inner_text()
        s.shot(page, "report-misconceptions")
        href = page.locator("a[href*='feedback/']").first.get_attribute("href")   # a student's name, in the table
        assert href, "the report links no feedback page"
        page.goto(urljoin(page.url, href))
        assert "/services/gradekit-report/feedback/" in page.url and "Score" in page.locator("body").inner_text()
    finally:
        s.close()
    # the addresses in the hub's log are the ones people open
    x.hub.wait_for(rf"grading {A} of transformers101: open {re.escape(x.hub.url)}/services/gradekit-grade/",
                   since_start=False)


def test_a_student_cannot_open_the_instructor_s_pages(hub, browser):
    s = Student(browser, hub, LAB, "lab")
    try:
        s.login(home=True)
        for service in ("gradekit-grade", "gradekit-report"):
            page = s.context.new_page()
            response = page.goto(f"{hub.hub.url}/services/{service}/")
            assert response is not None and response.status == 403, (service, response and response.status)
            assert "answers" not in page.locator("body").inner_text()
            page.close()
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


def test_no_classmate_reads_another_s_home_or_new_files_nor_the_hub_s_database(hub):
    """The homes were 0755 (Debian's useradd -m) and the servers' umask 022: a duplicated notebook and the
    Lab's workspace were there for any classmate to read, and so was jupyterhub.sqlite."""
    x = hub
    lab_home = Path("/home") / LAB
    copies = [p for p in (lab_home / A).glob("*.ipynb") if "Copy" in p.name]
    workspaces = sorted((lab_home / ".jupyter" / "lab" / "workspaces").glob("*"))
    database = x.folder / "state" / "jupyterhub.sqlite"
    assert copies and workspaces and database.is_file(), (copies, workspaces)
    for path in [lab_home, *copies, *workspaces]:
        assert not os.stat(path).st_mode & 0o077, f"{path} is {oct(os.stat(path).st_mode)}"   # theirs alone
    for target in [*copies, *workspaces, database, x.folder / "state" / "jupyterhub_cookie_secret"]:
        assert not x.gkwei.may("cat", f"'{target}'"), f"{NB7} can read {target}"
    assert not x.gkwei.may("ls", f"'{lab_home}'") and not x.gkwei.may("ls", f"'{x.folder / 'state'}'")
    assert x.gkada.may("cat", f"'{copies[0]}'")      # their own copy is theirs to open


def test_doctor_is_clean_on_this_deployment(hub):
    config = hub.folder / "jupyterhub_config.py"
    proc = hub.course.run(GRADEKIT, "doctor", "--hub-config", str(config),
                          "--student-python", str(unix_users.STUDENT_BIN / "python"), check=False)
    assert proc.returncode == 0 and "nothing to fix" in proc.stdout, proc.stdout + proc.stderr
    assert "the homes" in proc.stdout and str(config.parent) in proc.stdout, proc.stdout


def test_the_hub_runs_the_config_exactly_as_hub_config_prints_it(hub):
    assert (hub.folder / "jupyterhub_config.py").read_text() == hub.printed


def _service_pid(x, verb: str) -> int | None:
    """The pid of the hub's service running ``gradekit --course COURSE <verb>``: among the hub's own descendants."""
    from processes import descendants

    argv = f"--course {x.course.root} {verb}"
    found = [pid for pid, cmd in descendants(x.hub.proc.pid).items() if argv in cmd and "runuser" not in cmd]
    return found[0] if found else None


def _gone(pid: int, within: float) -> float:
    from processes import wait_gone

    return wait_gone(pid, within)


def test_a_service_that_dies_leaves_the_hub_up_and_is_started_again(hub):
    x = hub
    # all three killed at once: the hub notices each on its own poll (every 30 s), so the waits overlap
    services = (("gradekit", "serve", r"serving self_attention"),
                ("gradekit-grade", "grade", r"grading self_attention of transformers101: open"),
                ("gradekit-report", "report", r"class reports of self_attention"))
    before = {name: len(x.hub.wait_for(ready)) for name, _, ready in services}
    pids = {name: _service_pid(x, verb) for name, verb, _ in services}
    assert all(pids.values()), f"not all running: {pids}"
    for pid in pids.values():
        os.kill(pid, signal.SIGKILL)
    for name, _, ready in services:
        x.hub.wait_for(rf"Service {name} exited with status -9", timeout=60)
        x.hub.wait_for(ready, count=before[name] + 1, timeout=90)   # the hub started it again
        assert x.hub.alive()
    assert all(_service_pid(x, verb) not in (None, pids[name]) for name, verb, _ in services)
    # gradekit serve, warm from the journeys' hand-ins, stops on SIGTERM (it took 33 s: within 10 s here, and
    # how soon, beside an idle service, in bench/serve.py)
    pid = _service_pid(x, "serve")
    os.kill(pid, signal.SIGTERM)
    took = _gone(pid, 10)
    print(json.dumps({"serve_stops_after_sigterm_s": round(took, 2)}))


def test_a_hub_killed_with_sigkill_starts_again_and_grades_on(hub):
    x = hub
    x.hub.wait_for(r"serving self_attention", count=len(x.hub.wait_for(r"serving self_attention")))
    services = {verb: _service_pid(x, verb) for verb in ("serve", "grade", "report")}
    deadline = time.monotonic() + 60
    while not all(services.values()) and time.monotonic() < deadline:   # serve, after the SIGTERM above
        time.sleep(0.5)
        services = {verb: _service_pid(x, verb) for verb in ("serve", "grade", "report")}
    assert all(services.values()), services
    x.hub.kill()
    for verb, pid in services.items():        # a service whose hub died stops by itself
        took = _gone(pid, 15)
        print(json.dumps({f"{verb}_stops_after_its_hub_died_s": round(took, 2)}))
    x.hub.start()                            # nothing the dead hub left blocks the next one
    time.sleep(1.1)                          # nbgrader names a hand-in by the second
    x.gkada.run(str(unix_users.STUDENT_BIN / "nbgrader"), "submit", A,
                env={"JUPYTER_CONFIG_PATH": str(x.folder / "students")})
    x.hub.wait_for(rf"graded {LAB} {A} attempt 3", timeout=60)
    assert x.hub.alive() and "another `gradekit serve` is running" not in x.hub.text(since_start=True)
