"""The LTI tests' shared pieces: one test LMS and one generated course per module."""

from __future__ import annotations

import datetime as dt
import html
import json
import re

import jwt
import pytest
from conftest import ASSIGNMENT, CourseDir

from lti.lms import Served

STUDENTS = ("ada", "wei")


@pytest.fixture(scope="module")
def lti_course(tmp_path_factory):
    """A course with ada and wei, its assignment generated (the gradebook knows its cells)."""
    course = CourseDir.create(tmp_path_factory.mktemp("lti") / "course", students=STUDENTS)
    course.generate()
    return course


@pytest.fixture(scope="module")
def lms(lti_course):
    served = Served(names=list(STUDENTS))
    register(lti_course, served.lms)
    yield served.lms
    served.close()


def fetch_in_lab(page, assignment: str):
    """In JupyterLab, as a student: nbgrader's Assignments tab, ``assignment`` fetched; its list of fetched
    assignments (where the Submit button is) once it can be handed in."""
    for button in page.locator(".jp-toast-button").filter(has_text=re.compile("^No$")).all():
        button.click(timeout=2000)
    page.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile("^Nbgrader$")).click()
    page.locator("#jp-mainmenu-nbgrader .lm-Menu-item[data-command='nbgrader:open-assignment-list']").click()
    panel = page.locator("#assignments")
    panel.locator("#released_assignments_list .list_item").filter(has_text=assignment).first.wait_for(timeout=60_000)
    panel.locator("#released_assignments_list").get_by_role("button", name="Fetch").click()
    fetched = panel.locator("#fetched_assignments_list")
    fetched.get_by_role("button", name="Submit").wait_for(timeout=60_000)
    return fetched


def register(course: CourseDir, lms, hub_url: str = "http://127.0.0.1:9/") -> None:
    """``gradekit lti platform`` with what the LMS gave; the LMS given the tool's keys."""
    from gradekit.lti import keys

    assert (
        course.cli(
            "lti",
            "platform",
            "--issuer",
            lms.issuer,
            "--client-id",
            lms.client_id,
            "--deployment",
            lms.deployment_id,
            "--auth-url",
            lms.base + "/authorize",
            "--token-url",
            lms.token_url,
            "--jwks-url",
            lms.base + "/jwks",
            "--hub-url",
            hub_url,
            "--username-claim",
            "custom_username",
        )
        == 0
    )
    lms.registration.set_tool_key_set(keys.jwks(course.course))
    if not lms.redirect_uris:
        lms.redirect_uris = ("http://tool.invalid/callback",)


def id_token(lms, username: str, kind: str = "resource") -> dict:
    """What the LMS signs for ``username``'s launch (its /authorize answer), checked with its keys."""
    from starlette.testclient import TestClient

    person = lms.by_username(username)
    if kind == "deep":
        lms.deep_link_url = lms.deep_link_url or "http://tool.invalid/pick"
        lms.registration.set_deeplink_launch_url(lms.deep_link_url)
    q = {
        "response_type": "id_token",
        "scope": "openid",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": lms.client_id,
        "redirect_uri": lms.redirect_uris[0],
        "login_hint": person.sub,
        "nonce": "n-" + username + kind + str(dt.datetime.now().timestamp()),
        "state": "s",
        "lti_message_hint": json.dumps({"kind": kind}),
    }
    page = TestClient(lms.app).get("/authorize", params=q).text
    token = html.unescape(re.search(r"name='id_token' value='([^']+)'", page).group(1))
    return jwt.decode(token, lms.public_key, algorithms=["RS256"], audience=lms.client_id)


def launch(course: CourseDir, lms, username: str) -> dict:
    """A launch as the hub's login records it, of the LMS's own id_token."""
    from gradekit.lti import claims, launches

    token = id_token(lms, username)
    launches.record(course.course, token, claims.username_of(token, "custom_username"))
    return token


def grade(
    course: CourseDir, student: str, fraction: float = 1.0, when: dt.datetime | None = None, manual: dict | None = None
) -> None:
    """``student``'s submission in the gradebook with every cell at ``fraction`` of its points."""
    with course.gradebook() as gb:
        sub = gb.update_or_create_submission(
            ASSIGNMENT, student, timestamp=when or dt.datetime(2026, 12, 1, 10, 0, 0, 123456)
        )
        for nb in sub.notebooks:
            for g in nb.grades:
                g.auto_score = round(g.max_score * fraction, 4)
                g.needs_manual_grade = False
                g.manual_score = (manual or {}).get(g.name)
        gb.db.commit()


def gradebook(lms) -> dict:
    from starlette.testclient import TestClient

    return TestClient(lms.app).get("/test/gradebook").json()


def scores_of(lms, username: str) -> list[dict]:
    return [a for s in gradebook(lms)["scores"] if s["username"] == username for a in s["applied"]]
