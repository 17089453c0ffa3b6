"""The LTI launch into a hub built from ``gradekit hub-config --lti``'s output, from the test LMS.

The browser's part (the LMS's auto-submitted form, the hub's cookies) is played by an HTTP session:
launch -> the hub's OIDC login -> the LMS's authorize -> the form posted back -> logged in. Checked:
an instructor's launch is in the instructors group and reaches the deep-linking picker, a student's
gets 403 there; a replayed launch, and one from another deployment, are refused in one line."""

from __future__ import annotations

import html
import json
import os
import re
import secrets
import sys
import time
from pathlib import Path

import hubs
import pytest
import unix_users
from conftest import ASSIGNMENT

requests = pytest.importorskip("requests")
pytestmark = [pytest.mark.slow]

HUB_BIN = Path(sys.executable).parent / "jupyterhub"
ADMIN_TOKEN = secrets.token_hex(16)  # the course's venv: gradekit.lti.login and the authenticator


@pytest.fixture(scope="module")
def hub(lti_course, lms, tmp_path_factory):
    if hubs.unavailable(HUB_BIN):
        pytest.skip(hubs.unavailable(HUB_BIN))
    port, hub_port, api_port, grade_port, report_port, lti_port = hubs.free_ports(6)
    base = f"http://127.0.0.1:{port}"
    lms.tool(
        jwks_url=f"{base}/services/gradekit-lti/jwks",
        login_url=f"{base}/hub/lti13/oauth_login",
        redirect_uris=(f"{base}/hub/lti13/oauth_callback",),
        deep_link_url=f"{base}/services/gradekit-lti/pick",
        launch_url=f"{base}/hub/",
    )
    from lti.conftest import register

    register(lti_course, lms, hub_url=base + "/")
    lms.registration.set_tool_key_set(None)  # from the tool's JWKS URL, through the hub, as an LMS reads it
    folder = tmp_path_factory.mktemp("hub")
    out = lti_course.run(
        str(Path(sys.executable).parent / "gradekit"),
        "hub-config",
        ASSIGNMENT,
        "--lti",
        "--write",
        "--dir",
        str(folder),
        "--instructors",
        "prof",
        "--deploy",
        str(unix_users.DEPLOY),
        "--gradekit",
        str(Path(sys.executable).parent / "gradekit"),
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
    ).stdout
    assert "GradekitLTI13Authenticator" in out and '"gradekit-lti"' in out
    config = (folder / "jupyterhub_config.py").read_text()
    # the tests' hub runs the course's venv (gradekit.lti and the authenticator), and no grading service
    config += "\nc.JupyterHub.services = [s for s in c.JupyterHub.services if s['name'] == 'gradekit-lti']\n"
    # and a token for the instructor's gradekit lti roster (the hub's users, through its API)
    config += (
        f"c.JupyterHub.services.append({{'name': 'test-admin', 'api_token': '{ADMIN_TOKEN}'}})\n"
        "c.JupyterHub.load_roles.append({'name': 'test-admin', 'services': ['test-admin'], "
        "'scopes': ['admin:users', 'list:users']})\n"
    )
    h = hubs.Hub(
        folder / "state",
        config,
        hub_bin=HUB_BIN,
        env={"JUPYTERHUB_CRYPT_KEY": secrets.token_hex(32), "GRADEKIT_SECRET": os.environ["GRADEKIT_SECRET"]},
    )
    h.start()
    h.wait_for(r"LTI tool of", timeout=60)
    yield base, h
    h.close()


def _launch(lms, base: str, user: str, kind: str = "resource", keep: dict | None = None) -> requests.Response:
    """The LMS's link followed as a browser does, up to the hub's answer to the posted form."""
    s = requests.Session()
    r = s.get(f"{lms.base}/launch", params={"user": user, "kind": kind}, allow_redirects=False)
    r = s.get(r.headers["Location"], allow_redirects=False)  # the hub's login initiation
    assert r.status_code == 302, r.text
    form = s.get(r.headers["Location"], allow_redirects=False).text  # the LMS's authorize: the form
    action = html.unescape(re.search(r"action='([^']+)'", form).group(1))
    fields = {k: html.unescape(v) for k, v in re.findall(r"name='([^']+)' value='([^']*)'", form)}
    if keep is not None:
        keep.update(action=action, fields=fields, cookies=s.cookies.get_dict())
    answer = s.post(action, data=fields, allow_redirects=False)
    answer.session = s  # type: ignore[attr-defined]
    return answer


def test_launches_roles_and_the_picker(hub, lms, lti_course):
    base, h = hub
    prof = _launch(lms, base, "prof", kind="deep")
    assert prof.status_code == 302 and "/services/gradekit-lti/pick?request=" in prof.headers["Location"], prof.text
    page = prof.session.get(base + prof.headers["Location"])  # through the service's OAuth with the hub
    assert page.status_code == 200 and f"value='{ASSIGNMENT}'" in page.text, page.text[:300]
    xsrf = re.search(r"name=_xsrf value='([^']+)'", page.text).group(1)
    rid = re.search(r"name=request value='([^']+)'", page.text).group(1)
    answer = prof.session.post(page.url.split("?")[0], data={"_xsrf": xsrf, "request": rid, "assignment": ASSIGNMENT})
    assert answer.status_code == 200 and lms.base + "/deep_link_return" in answer.text, answer.text[:300]
    # the form posted back, as the browser does
    jwt_value = html.unescape(re.search(r"name='JWT' value='([^']+)'", answer.text).group(1))
    assert requests.post(lms.base + "/deep_link_return", data={"JWT": jwt_value}).status_code == 200
    again = _launch(lms, base, "prof", kind="deep")  # the same assignment added a second time
    page = again.session.get(base + again.headers["Location"])
    rid = re.search(r"name=request value='([^']+)'", page.text).group(1)
    xsrf = re.search(r"name=_xsrf value='([^']+)'", page.text).group(1)
    answer = again.session.post(page.url.split("?")[0], data={"_xsrf": xsrf, "request": rid, "assignment": ASSIGNMENT})
    jwt_value = html.unescape(re.search(r"name='JWT' value='([^']+)'", answer.text).group(1))
    assert requests.post(lms.base + "/deep_link_return", data={"JWT": jwt_value}).status_code == 200
    book = requests.get(lms.base + "/test/gradebook").json()
    assert len(book["links"]) == 2 and [i["resourceId"] for i in book["lineitems"]] == [ASSIGNMENT]  # one line item

    ada = _launch(lms, base, "ada")
    assert ada.status_code == 302 and ada.headers["Location"].startswith("/hub/"), ada.text
    assert ada.session.get(base + prof.headers["Location"]).status_code == 403  # a student: no instructor page
    posted = ada.session.post(page.url.split("?")[0], data={"_xsrf": xsrf, "request": rid, "assignment": ASSIGNMENT})
    assert posted.status_code == 403  # nor its form: no student request makes a line item or sends a score
    deadline = time.time() + 20
    from sqlalchemy import select

    from gradekit.lti import store

    while time.time() < deadline:  # the service read the launches into the course's tables
        with store.engine(lti_course.course).connect() as conn:
            people = dict(conn.execute(select(store.people.c.student, store.people.c.roles)).all())
        if {"prof", "ada"} <= set(people):
            break
        time.sleep(0.2)
    assert "Instructor" in people["prof"] and "Learner" in people["ada"]


def test_a_replayed_launch_and_another_deployment_are_refused(hub, lms):
    base, h = hub
    seen: dict = {}
    assert _launch(lms, base, "wei", keep=seen).status_code == 302
    again = requests.post(seen["action"], data=seen["fields"], cookies=seen["cookies"], allow_redirects=False)
    assert again.status_code == 401 and again.json() == {
        "error": "LTI launch refused: this launch was used before (nonce replayed)"
    }
    lms.registration.set_deployment_id("dep-elsewhere")
    try:
        other = _launch(lms, base, "wei")
    finally:
        lms.registration.set_deployment_id(lms.deployment_id)
    assert other.status_code == 401 and "deployment_id 'dep-elsewhere'" in other.json()["error"]
    assert len(h.wait_for(r"LTI launch refused \(401\)", count=2)) >= 2


@pytest.mark.parametrize(
    "forge, status, line",
    [
        ({"lifetime": -30}, 400, "Signature has expired"),
        ({"aud": "another-tool"}, 401, "Audience doesn't match"),
        ({"iss": "https://lms.invalid"}, 400, "Invalid issuer"),
        ({"other_key": True}, 400, "Unable to find a signing key"),
        ({"azp": "another-tool", "aud": None}, 401, "azp is not this tool's client id"),
    ],
)
def test_each_bad_launch_is_refused_in_one_line(hub, lms, forge, status, line):
    base, h = hub
    if forge.get("aud", "") is None:  # azp alone wrong: the aud stays the tool's
        forge = {"azp": forge["azp"]}
    lms.state.forge = forge
    try:
        answer = _launch(lms, base, "wei")
    finally:
        lms.state.forge = {}
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error.startswith("LTI launch refused: ") and line in error and "\n" not in error, error


def test_the_roster_into_the_gradebook_and_the_hub(hub, lms, lti_course):
    base, h = hub
    env = {**os.environ, "JUPYTERHUB_API_TOKEN": ADMIN_TOKEN}
    out = lti_course.run(
        str(Path(sys.executable).parent / "gradekit"), "lti", "roster", "--hub-api", f"{base}/hub/api", env=env
    ).stdout
    assert out.startswith("2 student(s) in the gradebook, 1 instructor(s)") and "the hub: " in out, out
    users = requests.get(f"{base}/hub/api/users", headers={"Authorization": f"token {ADMIN_TOKEN}"}).json()
    assert {"ada", "wei", "prof"} <= {u["name"] for u in users}
    groups = {u["name"]: u["groups"] for u in users}
    assert groups["prof"] == [f"{lti_course.course.course_id}-instructors"] and groups["ada"] == []


def test_the_hub_s_lti_config_url_gives_the_course_s_canvas_json(hub, lti_course, capsys):
    """/hub/lti13/config, where ltiauthenticator's docs send an admin: gradekit's tool-config, JWKS URL and all."""
    base, _h = hub
    served = requests.get(f"{base}/hub/lti13/config", timeout=10)
    assert served.status_code == 200 and served.headers["Content-Type"].startswith("application/json")
    capsys.readouterr()
    assert lti_course.cli("lti", "tool-config", "--lms", "canvas") == 0
    printed = capsys.readouterr().out
    assert served.json() == json.loads(printed)
    assert served.json()["public_jwk_url"] == f"{base}/services/gradekit-lti/jwks"
