"""An LMS course on the one-account hub, as docs/admin/lti.md sets it up, in chromium.

The hub is built from what ``gradekit hub-config --shape one-account --lti --write`` writes (every
server the one account, each in namespaces of its own; the hub exchange), run from ``make deploy``'s
venv as it is; the LMS is the test LMS (lti1p3platform served with FastAPI), the tool registered
at the hub's address. In the docs' order: the instructor adds the assignment from the LMS (the
picker, before anything is generated: its line item gets the assignment's whole points), a student
launches (their username comes with it), ``gradekit lti roster`` brings them into the gradebook,
their notebook is generated and released for them alone; they fetch, hand in, and the LMS's gradebook
shows their score once -- before the due date, without the part hidden until it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import secrets
import shutil
import subprocess
import time
from pathlib import Path

import hubs
import nbformat
import pytest
import unix_users
from conftest import ASSIGNMENT, CHROMIUM, NOTEBOOK, SECRET, VENV_BIN, CourseDir

from lti.conftest import fetch_in_lab, gradebook, register, scores_of
from lti.lms import Served

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A = ASSIGNMENT
STUDENT = "ada"  # no Unix account: a hub user the LMS's launch makes
SHARED = "gkltijov"  # the one account every server runs as (not tests/handout's: both may run at once)
HELD = "test_self_attention_permutation"  # hidden until the due date (2 points)
GRADEKIT = str(VENV_BIN / "gradekit")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
WITHIN = 30  # seconds from Submit to the score in the LMS (bench/lti.py measures the real figure)


@pytest.fixture(scope="module")
def x():
    reason = unix_users.unavailable() or hubs.unavailable()
    if not reason and not Path(CHROMIUM).exists():
        reason = "needs chromium (make)"
    if not reason:
        probe = subprocess.run(
            [str(unix_users.STUDENT_BIN / "python"), "-c", "import gradekit.lti.login"], capture_output=True
        )
        if probe.returncode:
            reason = f"the deployment in {unix_users.DEPLOY} has no LTI login (make deploy DEPLOY={unix_users.DEPLOY})"
    if reason:
        pytest.skip(reason)
    pytest.importorskip("playwright.sync_api")
    unix_users.create([SHARED])
    base = Path("/tmp") / f"gk-lti-one-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    hub = served = None
    try:
        course = CourseDir.create(base / "course", students=())  # the LMS's roster brings them
        os.chmod(course.root, 0o700)
        (course.root / ".gradekit").mkdir(exist_ok=True)
        (course.root / ".gradekit" / "secret").write_text(SECRET)  # the services read the course's own
        os.chmod(course.root / ".gradekit" / "secret", 0o600)
        course.write_settings(A, f'[serve]\nhidden_until_due = ["{HELD}"]\n')
        due = dt.datetime.now(dt.UTC) + dt.timedelta(days=7)
        course.run(str(VENV_BIN / "nbgrader"), "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
        port, hub_port, api_port, grade_port, report_port, exchange_port, lti_port = hubs.free_ports(7)
        url = f"http://127.0.0.1:{port}"
        served = Served(names=[STUDENT])
        lms = served.lms
        lms.tool(  # the tool registered at the LMS, with what `gradekit lti tool-config` gives
            jwks_url=f"{url}/services/gradekit-lti/jwks",
            login_url=f"{url}/hub/lti13/oauth_login",
            redirect_uris=(f"{url}/hub/lti13/oauth_callback",),
            deep_link_url=f"{url}/services/gradekit-lti/pick",
            launch_url=f"{url}/hub/",
        )
        register(course, lms, hub_url=url + "/")  # gradekit lti platform, with what the LMS gave
        lms.registration.set_tool_key_set(None)  # read from the tool's JWKS URL, through the hub
        folder = base / "jupyterhub"
        written = course.run(
            GRADEKIT, "hub-config", "--shape", "one-account", "--lti", "--write", "--dir", str(folder),
            "--deploy", str(unix_users.DEPLOY), "--account", SHARED, "--homes", str(base / "homes"),
            "--port", str(port), "--hub-port", str(hub_port), "--proxy-api-port", str(api_port),
            "--grade-port", str(grade_port), "--report-port", str(report_port),
            "--exchange-port", str(exchange_port), "--lti-port", str(lti_port), "--public-url", url + "/",
        )  # fmt: skip
        config = (folder / "jupyterhub_config.py").read_text()
        assert "gradekit.lti.login.GradekitLTI13Authenticator" in config and "NamespacedSpawner" in config
        assert "INSTRUCTORS = set()" in config and not (folder / "new-passwords.csv").exists(), written.stderr
        hub = hubs.Hub(
            folder / "test-state",
            folder / "jupyterhub_config.py",
            env={
                "PATH": f"{unix_users.STUDENT_BIN}:/usr/bin:/bin",
                "HOME": "/root",
                "JUPYTERHUB_CRYPT_KEY": secrets.token_hex(32),
            },
        )
        hub.start()
        hub.wait_for(r"serving self_attention", timeout=90)
        hub.wait_for(r"LTI tool of", timeout=60)
        ARTIFACTS.mkdir(exist_ok=True)
        yield type("X", (), {"course": course, "lms": lms, "hub": hub, "url": url, "homes": base / "homes"})
    finally:
        if hub is not None:
            hub.close()
        if served is not None:
            served.close()
        unix_users.remove([SHARED])
        shutil.rmtree(base, ignore_errors=True)


def test_an_lms_course_on_the_one_account_hub(x, browser):
    # the instructor adds the assignment from the LMS: the picker, before anything is generated
    page = browser.new_context().new_page()
    page.goto(f"{x.lms.base}/launch?user=prof&kind=deep")
    page.locator(f"button[name=assignment][value={A}]").click(timeout=60_000)
    page.wait_for_selector("#made", timeout=30_000)
    (item,) = gradebook(x.lms)["lineitems"]
    assert item["resourceId"] == A and item["scoreMaximum"] == 20, item  # the notebook's whole points

    # the student's first launch gives their username; the roster brings them in; their notebook
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    started = time.monotonic()
    page.goto(f"{x.lms.base}/launch?user={STUDENT}")
    page.wait_for_url(re.compile(rf"/user/{STUDENT}/lab"), timeout=120_000)
    page.wait_for_selector(".jp-DirListing-content, .jp-Launcher", timeout=90_000)
    launched = time.monotonic() - started
    said = x.course.run(GRADEKIT, "lti", "roster").stdout
    assert said.startswith("1 student(s) in the gradebook, 1 instructor(s)"), said
    assert f"new in the gradebook: {STUDENT}; " in said, said
    x.course.run(GRADEKIT, "generate", A, "--student", STUDENT)
    x.course.run(GRADEKIT, "release", A, "--student", STUDENT)  # into the hub exchange

    fetched = fetch_in_lab(page, A)
    _answer(x.course, x.homes / STUDENT / A / f"{NOTEBOOK}.ipynb")
    fetched.get_by_role("button", name="Submit").click()
    submitted = time.monotonic()
    while not scores_of(x.lms, STUDENT):
        assert time.monotonic() - submitted < WITHIN, (x.hub.text()[-3000:], gradebook(x.lms))
        time.sleep(0.2)
    took = time.monotonic() - submitted
    page.screenshot(path=str(ARTIFACTS / "lti-one-account-submitted.png"))
    (score,) = scores_of(x.lms, STUDENT)
    assert score["gradingProgress"] == "Pending" and score["activityProgress"] == "Submitted", score
    assert score["scoreGiven"] == 18 and score["scoreMaximum"] == item["scoreMaximum"], score  # HELD left out
    with x.course.gradebook() as gb:
        assert gb.find_submission(A, STUDENT).score == 20  # graded whole; its hidden part not sent
    book = gradebook(x.lms)
    assert [s["posts"] for s in book["scores"]] == [1] and not book["refused"], book
    assert len(book["lineitems"]) == 1
    status = x.course.run(GRADEKIT, "lti", "status").stdout
    assert "1 line item(s); scores: 1 sent, 0 pending, 0 failed" in status, status
    assert "404 GET /services/gradekit-lti/" not in x.hub.text()  # the hub's look at the service
    print(f"launch -> JupyterLab (server started): {launched:.2f} s; Submit -> the score in the LMS: {took:.2f} s")


def _answer(course: CourseDir, path: Path) -> None:
    """The fetched notebook (the shared account's) with its solution cells from the student's answer key."""
    nb = nbformat.read(str(path), as_version=4)
    key = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in course.answer_key(STUDENT).cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and gid in key:
            cell.source = key[gid]
    nbformat.write(nb, str(path))
    shutil.chown(path, SHARED, SHARED)
