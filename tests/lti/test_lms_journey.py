"""From the LMS to the LMS's gradebook, in chromium: a student launches the course from the test LMS,
lands in JupyterLab on a hub built from ``gradekit hub-config --lti``'s output (as it is written, the
hub run from ``make deploy``'s venv, with real Unix accounts), fetches, hands in, and the LMS's
gradebook shows the score seconds later -- sent by the course's ``gradekit-lti`` service."""

from __future__ import annotations

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

A, NB = ASSIGNMENT, NOTEBOOK
STUDENT = "gkltiada"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
GRADEKIT = str(VENV_BIN / "gradekit")
SCORE_WITHIN = 30  # seconds from Submit to the score in the LMS: bench/lti.py measures the real figure


@pytest.fixture(scope="module")
def x(tmp_path_factory):
    reason = unix_users.unavailable() or hubs.unavailable()
    if not reason and not Path(CHROMIUM).exists():
        reason = "needs chromium (make)"
    probe = (
        subprocess.run([str(unix_users.STUDENT_BIN / "python"), "-c", "import gradekit.lti.login"], capture_output=True)
        if not reason
        else None
    )
    if probe is not None and probe.returncode:
        reason = f"the deployment in {unix_users.DEPLOY} has no LTI login (make deploy DEPLOY={unix_users.DEPLOY})"
    if reason:
        pytest.skip(reason)
    pytest.importorskip("playwright.sync_api")
    unix_users.create([STUDENT])
    base = Path("/tmp") / f"gk-lti-hub-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    hub = served = None
    try:
        course = CourseDir.create(base / "course", (STUDENT,))
        os.chmod(course.root, 0o700)
        with open(course.root / "nbgrader_config.py", "a") as fh:
            fh.write(f'\nc.Exchange.root = "{base / "exchange"}"\n')
        course.generate()
        (course.root / ".gradekit" / "secret").write_text(SECRET)
        os.chmod(course.root / ".gradekit" / "secret", 0o600)
        course.run(GRADEKIT, "release", A)
        port, hub_port, api_port, grade_port, report_port, lti_port = hubs.free_ports(6)
        url = f"http://127.0.0.1:{port}"
        served = Served(names=[STUDENT])
        lms = served.lms
        lms.tool(
            jwks_url=f"{url}/services/gradekit-lti/jwks",
            login_url=f"{url}/hub/lti13/oauth_login",
            redirect_uris=(f"{url}/hub/lti13/oauth_callback",),
            deep_link_url=f"{url}/services/gradekit-lti/pick",
            launch_url=f"{url}/hub/",
        )
        register(course, lms, hub_url=url + "/")  # gradekit lti platform, with what the LMS gave
        lms.registration.set_tool_key_set(None)  # read from the tool's JWKS URL, through the hub
        folder = base / "jupyterhub"
        course.run(
            GRADEKIT,
            "hub-config",
            "--lti",
            "--write",
            "--dir",
            str(folder),
            "--deploy",
            str(unix_users.DEPLOY),
            "--instructors",
            "prof",
            "--port",
            str(port),
            "--hub-port",
            str(hub_port),
            "--proxy-api-port",
            str(api_port),
            "--grade-port",
            str(grade_port),
            "--report-port",
            str(report_port),
            "--lti-port",
            str(lti_port),
            "--public-url",
            url + "/",
        )
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
        yield type("X", (), {"course": course, "lms": lms, "hub": hub, "url": url, "base": base})
    finally:
        if hub is not None:
            hub.close()
        if served is not None:
            served.close()
        unix_users.remove([STUDENT])
        shutil.rmtree(base, ignore_errors=True)


def test_launch_fetch_submit_and_the_lms_shows_the_score(x, browser):
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.goto(f"{x.lms.base}/launch?user={STUDENT}")  # the link in the LMS course
    page.wait_for_url(re.compile(rf"/user/{STUDENT}/lab"), timeout=120_000)
    page.wait_for_selector(".jp-DirListing-content, .jp-Launcher", timeout=90_000)
    fetched = fetch_in_lab(page, A)
    _answer(x.course, STUDENT)  # the student's work: their own variant's answers
    fetched.get_by_role("button", name="Submit").click()
    submitted = time.monotonic()
    while not [s for s in scores_of(x.lms, STUDENT) if s.get("scoreGiven")]:
        assert time.monotonic() - submitted < SCORE_WITHIN, (x.hub.text()[-3000:], gradebook(x.lms))
        time.sleep(0.2)
    took = time.monotonic() - submitted
    page.screenshot(path=str(ARTIFACTS / "lti-submitted.png"))
    (score,) = scores_of(x.lms, STUDENT)
    assert score["scoreGiven"] == score["scoreMaximum"] > 0, score  # the whole score: there is no due date
    assert score["gradingProgress"] == "FullyGraded" and score["activityProgress"] == "Completed"
    (item,) = gradebook(x.lms)["lineitems"]
    assert item["resourceId"] == A and item["scoreMaximum"] == score["scoreMaximum"]
    print(f"Submit -> the score in the LMS: {took:.2f} s")


def _answer(course: CourseDir, student: str) -> None:
    """The fetched notebook with its solution cells written from the student's own answer key."""
    path = Path("/home") / student / A / f"{NB}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    key = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in course.answer_key(student).cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and gid in key:
            cell.source = key[gid]
    nbformat.write(nb, str(path))
    shutil.chown(path, student, student)
