"""The whole loop on a hub where every student's server is the same Unix account, through the hub exchange.

What Zero to JupyterHub and DockerSpawner do (every server ``jovyan``, no disk shared), on one
machine, built from what ``gradekit hub-config --shape one-account --write`` writes, as an admin
gets it (docs/admin/one-account.md): every server runs as the one account ``gkjovyan``, each in
bubblewrap namespaces of its own (its own PID namespace, only its own home mounted, as a
container per student would); each person logs in with the password hub-config made for them
(no Unix account for any student); the hub exchange, ``gradekit serve``, the grading page and the
class report are services the hub starts. The students' servers read the settings folder it
writes: the hub exchange's classes and its URL (through the hub's proxy); their tokens may use it.

Playwright in JupyterLab, as tests/handout/test_jupyterhub.py does it: two students each fetch
their own numbers, submit a mistake the visible checks miss, read its feedback seconds later, fix
it, hand in again and read full marks -- one in JupyterLab in English, one in Notebook 7 in
Chinese. Then: the shared account reads neither the exchange's store nor the course, and
``gradekit doctor`` says this deployment is sound.
"""

from __future__ import annotations

import csv
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

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A = ASSIGNMENT
SHARED = "gkjovyan"
# the hub's own users (no Unix accounts: the one account is SHARED), named apart from test_jupyterhub.py's
# accounts so that the two hubs run side by side
LAB, NB7, TEACHER = "gkbea", "gkmei", "gkdean"
GRADEKIT = str(VENV_BIN / "gradekit")
COURSE = "transformers101"
# this journey: full feedback at once but for the permutation property, which waits for the due date;
# no limit on attempts, the best counts (tests/handout/test_jupyterhub.py declares its own)
SHOWS = tj.Shows(held="test_self_attention_permutation", attempts=0, counts="best")


class Hub(hubs.Hub):
    """The course's hub, run from the jupyterhub_config.py `gradekit hub-config --write` wrote, as it is."""

    def __init__(self, folder: Path, port: int):
        super().__init__(folder / "test-state", folder / "jupyterhub_config.py",
                         env={"PATH": f"{unix_users.STUDENT_BIN}:/usr/bin:/bin", "HOME": "/root"})
        self.url = f"http://127.0.0.1:{port}"


def one_account_hub(base: Path, course: CourseDir, students: tuple[str, ...], *options: str) -> SimpleNamespace:
    """``course`` on a one-account hub, as docs/admin/one-account.md sets one up: hub-config --write adds the
    course's lines for the hub exchange and writes the hub's folder, started as it is; the passwords it made."""
    port, hub_port, api_port, grade_port, report_port, exchange_port = hubs.free_ports(6)
    url = f"http://127.0.0.1:{port}/services/gradekit-exchange/"
    (course.root / ".gradekit").mkdir(exist_ok=True)
    (course.root / ".gradekit" / "secret").write_text(SECRET)   # the services read the course's own secret
    os.chmod(course.root / ".gradekit" / "secret", 0o600)
    folder = base / "jupyterhub"
    written = course.run(GRADEKIT, "hub-config", "--shape", "one-account", "--write", "--dir", str(folder),
                         "--deploy", str(unix_users.DEPLOY), "--instructors", TEACHER, "--account", SHARED,
                         "--homes", str(base / "homes"), "--port", str(port), "--hub-port", str(hub_port),
                         "--proxy-api-port", str(api_port), "--grade-port", str(grade_port),
                         "--report-port", str(report_port), "--exchange-port", str(exchange_port),
                         "--public-url", f"http://127.0.0.1:{port}/", *options)
    assert f'c.GradekitHubExchange.url = "{url}"' in (course.root / "nbgrader_config.py").read_text()
    with open(folder / "new-passwords.csv", newline="") as fh:
        passwords = {row["name"]: row["password"] for row in csv.DictReader(fh)}
    assert set(passwords) == {*students, TEACHER}, passwords
    h = Hub(folder, port)
    return SimpleNamespace(hub=h, folder=folder, printed=written.stdout, written=written.stderr, url=url,
                           passwords=passwords, store=folder / "state" / "exchange", homes=base / "homes",
                           token=(course.root / ".gradekit" / "hub-token").read_text().strip())


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
    x = None
    try:
        course = CourseDir.create(tmp_path_factory.mktemp("hubx") / "course", (LAB, NB7))
        os.chmod(course.root, 0o700)
        (course.root / "languages.csv").write_text(f"student_id,language\n{NB7},zh\n")
        course.generate()
        due = dt.datetime.now(dt.UTC) + dt.timedelta(days=7)
        course.run(str(VENV_BIN / "nbgrader"), "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
        shows = SHOWS.bind(course, due)
        x = one_account_hub(base, course, (LAB, NB7))
        with open(x.folder / "interfaces.csv", "a") as fh:   # this test's choice: one student in Notebook 7
            fh.write(f"{NB7},notebook\n")
        tj.ARTIFACTS.mkdir(exist_ok=True)
        for old in tj.ARTIFACTS.glob(f"hub-{LAB}-*.png"):
            old.unlink()
        started = time.monotonic()
        x.hub.start()
        x.hub.wait_for("hub exchange of")
        course.run(GRADEKIT, "release", A)     # into the hub exchange, with the course's token
        x.hub.wait_for("serving self_attention", timeout=90)
        x.serving_after = time.monotonic() - started

        def handins(user: str) -> int:
            import urllib.request

            request = urllib.request.Request(f"{x.url}api/{COURSE}/listing/{user}",
                                             headers={"Authorization": f"token {x.token}"})
            with urllib.request.urlopen(request, timeout=30) as answer:
                return sum(len(a["handins"]) for a in json.loads(answer.read())["assignments"])

        x.course, x.shared, x.handins, x.shows = course, shared, handins, shows
        x.student_config = x.folder / "students"
        yield x
    finally:
        if x is not None:
            x.hub.close()
        unix_users.remove([SHARED])
        shutil.rmtree(base, ignore_errors=True)


class HubStudent(tj.Student):
    """tests/handout/test_jupyterhub.py's student, whose server is the shared account's, in a home of its own."""

    def __init__(self, browser, x, name: str, ui: str):
        super().__init__(browser, x, name, ui)
        self.root = x.homes / name   # its home on the machine, /home/gkjovyan inside its server
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
    os.chmod(hub.store.parent, 0o755)
    os.chmod(hub.store, 0o755)
    os.chmod(hub.store / "exchange.sqlite", 0o644)
    try:
        leak = hub.course.run(GRADEKIT, "doctor", "--student-account", SHARED, check=False)
        assert leak.returncode == 1 and f"the students' account {SHARED} can read {hub.store}" in leak.stdout, \
            leak.stdout
    finally:
        os.chmod(hub.store, 0o700)
        os.chmod(hub.store / "exchange.sqlite", 0o600)
        os.chmod(hub.store.parent, 0o700)
    # a course whose token does not teach it: the scope named
    token = hub.course.root / ".gradekit" / "hub-token"
    kept = token.read_text()
    token.write_text(secrets.token_hex(16) + "\n")
    try:
        wrong = hub.course.run(GRADEKIT, "doctor", check=False)
        assert wrong.returncode == 1 and "the hub exchange:" in wrong.stdout and "fix:" in wrong.stdout, wrong.stdout
    finally:
        token.write_text(kept)


# what a student's own code finds when it looks for a classmate: run in her kernel, as her notebook would
LOOK = r'''
import glob, json, os, urllib.error, urllib.request
found = {"home": os.path.expanduser("~"), "in_home": sorted(os.listdir("/home")), "pids": [], "tokens": [],
         "paths": {}, "handins": {}}
for pid in (p for p in os.listdir("/proc") if p.isdigit()):
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    except OSError:
        continue
    found["pids"].append(cmd)
    found["tokens"] += [e.split(b"=", 1)[1].decode() for e in env if e.startswith(b"JUPYTERHUB_API_TOKEN=")]
for path in PATHS:
    found["paths"][path] = os.path.exists(path) or bool(glob.glob(path))
mine = os.environ["JUPYTERHUB_API_TOKEN"]
for token in sorted(set(found["tokens"]) | {mine}):   # a hand-in as the classmate, with every token there is
    request = urllib.request.Request(f"{URL}api/{COURSE}/handins/{ASSIGNMENT}?user={CLASSMATE}", data=b"PK",
                                     method="POST", headers={"Authorization": f"token {token}",
                                                             "X-Gradekit-Key": os.urandom(8).hex()})
    try:
        urllib.request.urlopen(request, timeout=30)
        found["handins"][token == mine] = 201
    except urllib.error.HTTPError as exc:
        found["handins"][token == mine] = exc.code
found["tokens"] = [t == mine for t in found["tokens"]]
print(json.dumps(found))
'''


def test_a_student_s_code_finds_no_classmate_s_files_processes_or_token(hub):
    """As a container per student keeps them apart on Kubernetes: her own code, in her own kernel, finds her
    home alone, her server's processes alone, her own token alone, and cannot hand in as her classmate."""
    import hub_kernel

    assert hub.handins(NB7) >= 1, "run the journeys first: her classmate's server, files and token are there"
    theirs = hub.homes / NB7
    assert any(theirs.rglob("*.ipynb")), "her classmate's work is on the machine"
    paths = [str(theirs), str(theirs / A), str(hub.homes), str(hub.course.root), str(hub.folder / "state"),
             str(hub.store), f"/home/*/{NB7}", f"/proc/*/root{theirs}"]
    code = (f"PATHS = {paths!r}\nURL = {hub.url!r}\nCOURSE = {COURSE!r}\nASSIGNMENT = {A!r}\n"
            f"CLASSMATE = {NB7!r}\n") + LOOK
    before = hub.handins(NB7)
    s = hub_kernel.Session(hub.hub.url, LAB, hub.passwords[LAB])
    try:
        found = json.loads(s.run(code).strip().splitlines()[-1])
    finally:
        s.close()
    print(json.dumps(found, indent=1))
    assert found["home"] == f"/home/{SHARED}" and found["in_home"] == [SHARED]       # her home, and no other
    assert not any(found["paths"].values()), found["paths"]                          # nothing of hers, the course's
    assert found["tokens"] and all(found["tokens"]), "a token in /proc that is not her own"
    servers = [cmd for cmd in found["pids"] if "jupyterhub-singleuser" in cmd and "bwrap" not in cmd.split()[0]]
    assert len(servers) == 1, found["pids"]          # her own server alone (and her sandbox's init, bwrap)
    assert all(f"/{NB7}" not in cmd for cmd in found["pids"]), found["pids"]
    assert found["handins"] == {"true": 403}, found["handins"]                       # her own token: refused
    assert hub.handins(NB7) == before
    # the same look as the same account outside the namespaces (what a shared account without them is): her
    # classmate's server is there, with her token in its environment -- what the namespaces keep out
    outside = hub.shared.run(str(unix_users.STUDENT_BIN / "python"), "-c", TOKENS).stdout.split()
    assert len(set(outside)) >= 2, "no classmate's token to keep out: the look above proves nothing"


def test_a_student_s_terminal_runs_the_students_nbgrader(hub):
    """docs/students.md: in a terminal, the steps are nbgrader commands. The terminal's login shell took
    /etc/profile's PATH, and said "nbgrader: command not found"; its shell now keeps the server's."""
    import hub_kernel

    s = hub_kernel.Session(hub.hub.url, LAB, hub.passwords[LAB])
    try:
        said = s.terminal("command -v nbgrader python; nbgrader list")
    finally:
        s.close()
    print(said)
    assert f"{unix_users.STUDENT_BIN}/nbgrader" in said and f"{unix_users.STUDENT_BIN}/python" in said, said
    assert "command not found" not in said and f"{COURSE} {A}" in said, said


TOKENS = """
import os
for pid in (p for p in os.listdir("/proc") if p.isdigit()):
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\\0")
    except OSError:
        continue
    print(*(e.split(b"=", 1)[1].decode() for e in env if e.startswith(b"JUPYTERHUB_API_TOKEN=")))
"""



def test_the_grader_is_up_at_once_and_the_instructor_opens_the_pages(hub):
    """hub-config's output started as it is: gradekit serve waited for the proxy's route and the exchange
    instead of exiting (it exited 2 and the hub started it again: grading began 34 s after the hub), and the
    instructor opens the grading page and the class report behind the hub's login, with no token."""
    import hub_kernel

    assert hub.handins(LAB) >= 2, "run the journeys first: the report is of a graded class"
    log = hub.hub.text()
    assert "Service gradekit exited" not in log and "Service gradekit-grade exited" not in log, log[-3000:]
    print(json.dumps({"hub_start_to_serving_s": round(hub.serving_after, 2)}))
    prof = hub_kernel.login(hub.hub.url, TEACHER, hub.passwords[TEACHER])
    page = prof.get(f"{hub.hub.url}/services/gradekit-grade/", timeout=60)
    assert page.ok and "token" not in page.url and "<!doctype html>" in page.text.lower(), (page.status_code, page.url)
    report = prof.get(f"{hub.hub.url}/services/gradekit-report/reports/{A}/", timeout=120)
    assert report.ok and A in report.text and "misconceptions" in report.text, (report.status_code, report.text[:500])
    # a student gets the hub's refusal
    ada = hub_kernel.login(hub.hub.url, LAB, hub.passwords[LAB])
    assert ada.get(f"{hub.hub.url}/services/gradekit-grade/", timeout=60).status_code == 403


def test_doctor_names_one_account_without_namespaces(hub):
    """The shape is sound as hub-config writes it; as local processes of one account (the spawner in the hub's
    config, or servers of the account seen in this machine's own PID namespace) doctor names it."""
    import subprocess

    config = hub.folder / "jupyterhub_config.py"
    ok = hub.course.run(GRADEKIT, "doctor", "--student-account", SHARED, "--hub-config", str(config), check=False)
    assert ok.returncode == 0 and "nothing to fix" in ok.stdout, ok.stdout + ok.stderr
    unsafe = hub.folder / "unsafe_config.py"   # the same hub, its servers local processes of the one account
    unsafe.write_text(config.read_text().replace('"gradekit.hub.spawner.NamespacedSpawner"', '"localprocess"'))
    said = hub.course.run(GRADEKIT, "doctor", "--student-account", SHARED, "--hub-config", str(unsafe), check=False)
    lines = [line for line in said.stdout.splitlines() if "nothing between them" in line]
    assert said.returncode == 1 and len(lines) == 1, said.stdout
    assert "the spawner localprocess runs them as local processes" in lines[0] and "--shape one-account" in lines[0]
    # what runs: a server of the account in this machine's own PID namespace, as such a spawner starts it
    plain = subprocess.Popen(["runuser", "-u", SHARED, "--", "bash", "-c", "exec -a jupyterhub-singleuser sleep 60"],
                             start_new_session=True)
    try:
        time.sleep(0.5)
        seen = hub.course.run(GRADEKIT, "doctor", "--student-account", SHARED, check=False)
        named = f"1 server(s) of {SHARED} run in this machine's own PID namespace"
        assert seen.returncode == 1 and named in seen.stdout, seen.stdout
    finally:
        os.killpg(plain.pid, 9)
        plain.wait()


def test_refresh_at_any_human_pace_never_meets_the_limit_and_a_refusal_is_its_line(hub, browser):
    """The Assignments tab lists four times a Refresh (its courses, then its list, each released and
    submitted): 2 a second met the exchange's 120 reads a minute within a minute, and the tab stayed on a
    stale list or "Loading, please wait..." with 100 tracebacks in the server's log. One Refresh is one read
    now: 60 Refreshes in 30 s are refused nothing. A refusal (her reads spent by a script of her own) is its
    one line in the tab, and one line in the server's log."""
    import requests

    import hub_kernel

    s = HubStudent(browser, hub, LAB, "lab")
    mark = len(hub.hub.text())
    try:
        s.login()
        s.nbgrader_menu()
        s.page.locator("#jp-mainmenu-nbgrader .lm-Menu-item[data-command='nbgrader:open-assignment-list']").click()
        s.panel = s.page.locator("#assignments")
        released = s.panel.locator("#released_assignments_list, #fetched_assignments_list")   # fetched already, or not
        released.locator(".list_item").filter(has_text=A).first.wait_for(timeout=60_000)
        error = s.panel.locator("#released_assignments_list_error")
        # 60 Refreshes, 2 a second at most (as fast as a hand can, for 30 s), however loaded the machine:
        # each ends in her list, not "Loading, please wait...", and none is refused
        for _ in range(60):
            s.panel.locator("#refresh_assignments_list").click()
            s.page.wait_for_timeout(500)
            released.locator(".list_item").filter(has_text=A).first.wait_for(timeout=15_000)
            assert not error.is_visible(), error.inner_text()
        # her reads spent by a script with a token of her own: the tab says why, in one line
        token = hub_kernel.token(hub_kernel.login(hub.hub.url, LAB, hub.passwords[LAB]), hub.hub.url, LAB)

        def spend():
            """Her script reads until refused (the minute's window slides: reads of a minute ago free room)."""
            for _ in range(130):
                r = requests.get(f"{hub.url}api/{COURSE}/assignments", headers={"Authorization": f"token {token}"},
                                 timeout=30)
                if r.status_code == 429:
                    return
            raise AssertionError(f"130 reads and no refusal: {r.status_code} {r.text[:200]}")

        spend()
        s.panel.locator("#refresh_assignments_list").click()
        error.wait_for(state="visible", timeout=30_000)
        said = error.inner_text().strip()
        s.shot(s.page, "refused")
        assert said.startswith("too many requests: the limit is 120 a minute") and "\n" not in said, said
        # the course list asks the exchange nothing: the tab names her course, never "Error fetching
        # courses!" (what it said, with each Refresh's list left on "Loading, please wait...")
        assert s.panel.locator("#course_list_default").inner_text() == COURSE
        for _ in range(5):                                          # Refresh once a second: the line each time
            spend()
            s.panel.locator("#refresh_assignments_list").click()
            s.page.wait_for_timeout(1000)
            error.wait_for(state="visible", timeout=5_000)
            assert error.inner_text().strip().startswith("too many requests: the limit is 120 a minute")
            assert s.panel.locator("#course_list_default").inner_text() == COURSE
    finally:
        s.close()
    log = hub.hub.text()[mark:]
    assert "Traceback" not in log, log[-3000:]
    assert "gradekit: the Assignments tab's list: too many requests" in log, log[-3000:]
