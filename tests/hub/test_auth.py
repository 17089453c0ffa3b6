"""The hub's login for gradekit's services, against a real JupyterHub (gradekit.web.auth).

A hub on loopback with three users: ``prof`` in the course's instructor group
(its role grants the course's instructor scope and the service), ``visitor``
whom a role lets reach the service but who does not teach the course, and
``ada``, a student, whom nothing lets in. The service is tests/hub/whoami_service.py,
made of gradekit's handlers alone, started by the hub as a course's service is.
Browsers are ``requests`` sessions that log in through the hub's form and
follow its OAuth redirects; API callers send hub tokens the test mints.
"""

from __future__ import annotations

import re
import secrets
import sys
import time
from pathlib import Path

import hubs
import pytest

pytest.importorskip("jupyterhub")
requests = pytest.importorskip("requests")

from gradekit.errors import HubUnreachable, UsageError  # noqa: E402
from gradekit.web.auth import Caller, HubIdentity, instructor_role, instructor_scope, service_settings  # noqa: E402

pytestmark = pytest.mark.slow

COURSE = "transformers101"
PASSWORD = "attention-is-all-2026"
HUB_BIN = Path(sys.executable).parent / "jupyterhub"   # the same jupyterhub as the service's
SERVICE = Path(__file__).with_name("whoami_service.py")

CONFIG = '''\
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = ["{chp}"]
c.JupyterHub.db_url = "sqlite:///{state}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{state}/jupyterhub_cookie_secret"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = "{password}"
c.Authenticator.allowed_users = {{"prof", "visitor", "ada"}}
c.JupyterHub.custom_scopes = {{"{scope}": {{"description": "teaches {course}"}}}}
c.JupyterHub.load_groups = {{"{role}": {{"users": ["prof"]}}}}
c.JupyterHub.load_roles = [
    {{"name": "{role}", "groups": ["{role}"], "scopes": ["{scope}", "access:services!service=whoami"]}},
    {{"name": "visitors", "users": ["visitor"], "scopes": ["access:services!service=whoami"]}},
    {{"name": "tester", "services": ["tester"], "scopes": ["admin:users", "tokens"]}},
]
c.JupyterHub.services = [
    {{"name": "tester", "api_token": "{tester}"}},
    {{"name": "whoami", "url": "http://127.0.0.1:{service_port}", "command": ["{python}", "{service}", "{course}"],
      "oauth_client_allowed_scopes": ["{scope}"], "oauth_no_confirm": True}},
]
'''


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    reason = hubs.unavailable(HUB_BIN)
    if reason:
        pytest.skip(reason)
    port, hub_port, api_port, service_port = hubs.free_ports(4)
    state = tmp_path_factory.mktemp("hub-auth") / "hub"
    tester = secrets.token_hex(16)
    config = CONFIG.format(port=port, hub_port=hub_port, api_port=api_port, chp=hubs.CHP, state=state,
                           password=PASSWORD, scope=instructor_scope(COURSE), role=instructor_role(COURSE),
                           course=COURSE, tester=tester, service_port=service_port, python=sys.executable,
                           service=SERVICE)
    h = hubs.Hub(state, config, hub_bin=HUB_BIN)
    try:
        h.start()
        h.wait_for("whoami listening")
        h.url, h.api, h.tester = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{hub_port}/hub/api", tester
        h.service = f"http://127.0.0.1:{port}/services/whoami/"
        yield h
    finally:
        h.close()


def _token(hub, user: str, **body) -> dict:
    r = requests.post(f"{hub.api}/users/{user}/tokens", json={"note": "test", **body},
                      headers={"Authorization": f"token {hub.tester}"}, timeout=10)
    assert r.status_code in (200, 201), r.text
    return r.json()


def _browser(hub, user: str) -> tuple[requests.Session, requests.Response]:
    """A browser that opens the service, is sent to the hub's login, logs in and follows the redirects."""
    s = requests.Session()
    r = s.get(hub.service, timeout=20)
    assert "/hub/login" in r.url, r.url                        # not logged in: the hub's login page
    form = re.search(r'<form[^>]*action="([^"]+)"', r.text)
    xsrf = re.search(r'name="_xsrf"[^>]*value="([^"]+)"', r.text)
    assert form and xsrf, r.text[:2000]
    action = form.group(1).replace("&amp;", "&")
    r = s.post(requests.compat.urljoin(r.url, action), data={"username": user, "password": PASSWORD,
                                                             "_xsrf": xsrf.group(1)}, timeout=20)
    return s, r


def test_an_instructor_logs_in_through_the_hub_and_reaches_the_page_and_the_api(hub):
    s, r = _browser(hub, "prof")
    assert r.status_code == 200 and r.url == hub.service, (r.status_code, r.url, r.text[:500])
    assert r.text.startswith("instructor prof"), r.text
    me = s.get(hub.service + "api/me", timeout=10)
    assert me.status_code == 200 and me.json() == {"name": "prof", "groups": [instructor_role(COURSE)],
                                                   "instructs": True}, me.text
    # a POST on the OAuth cookie carries the page's XSRF token; without it the cookie does not count
    xsrf = re.search(r"xsrf (\S+)", r.text).group(1)
    ok = s.post(hub.service + "api/me", json={"x": 1}, headers={"X-XSRFToken": xsrf}, timeout=10)
    assert ok.status_code == 200 and ok.json() == {"name": "prof", "posted": {"x": 1}}, ok.text
    forged = s.post(hub.service + "api/me", json={"x": 1}, timeout=10)
    assert forged.status_code == 403 and "error" in forged.json(), forged.text


def test_a_hub_user_who_does_not_teach_the_course_gets_one_line(hub):
    s, r = _browser(hub, "visitor")         # the hub lets them reach the service: gradekit refuses
    assert r.status_code == 403, (r.status_code, r.url)
    assert r.text.strip() == (f"gradekit: visitor does not teach {COURSE} (the hub group {instructor_role(COURSE)} "
                              f"holds its scope {instructor_scope(COURSE)}): ask the course's instructor to add you")
    assert s.get(hub.service + "api/me", timeout=10).status_code == 403


def test_a_student_is_refused_by_the_hub_itself(hub):
    s, r = _browser(hub, "ada")             # no role gives them the service: the hub's OAuth says no
    assert r.status_code == 403 and "/hub/" in r.url, (r.status_code, r.url)
    assert s.get(hub.service + "api/me", timeout=10).status_code == 403


def test_an_api_caller_is_known_by_their_hub_token(hub):
    prof, ada = _token(hub, "prof"), _token(hub, "ada")
    me = requests.get(hub.service + "api/me", headers={"Authorization": f"token {prof['token']}"}, timeout=10)
    assert me.status_code == 200 and me.json()["name"] == "prof"
    no = requests.get(hub.service + "api/me", headers={"Authorization": f"token {ada['token']}"}, timeout=10)
    assert no.status_code == 403 and "ada does not teach" in no.json()["error"], no.text
    anyone = requests.get(hub.service + "api/caller", headers={"Authorization": f"token {ada['token']}"}, timeout=10)
    assert anyone.status_code == 200 and anyone.json()["name"] == "ada" and anyone.json()["kind"] == "user"
    assert instructor_scope(COURSE) not in anyone.json()["scopes"]
    for headers in ({}, {"Authorization": "token " + secrets.token_hex(16)}):   # none, or a forged one
        r = requests.get(hub.service + "api/caller", headers=headers, timeout=10)
        assert r.status_code == 401 and "Authorization: token" in r.json()["error"], r.text
    # a token of the instructor's that holds less than they do is refused what it does not hold
    narrow = _token(hub, "prof", scopes=["read:users:name!user=prof"])
    r = requests.get(hub.service + "api/me", headers={"Authorization": f"token {narrow['token']}"}, timeout=10)
    assert r.status_code == 403, r.text


def test_identify_asks_the_hub_whose_token_it_is(hub):
    identity = HubIdentity(hub.api, hub.tester)
    prof, ada = _token(hub, "prof"), _token(hub, "ada")
    p = identity.identify(prof["token"])
    assert isinstance(p, Caller) and p.name == "prof" and p.kind == "user"
    assert p.groups == {instructor_role(COURSE)} and p.instructs(COURSE) and not p.instructs("another101")
    assert p.may("access:services!service=whoami") and not p.may("access:services!service=other")
    a = identity.identify(ada["token"])
    assert a is not None and a.name == "ada" and not a.groups and not a.instructs(COURSE)
    service = identity.identify(hub.tester)
    assert service is not None and service.kind == "service" and service.name == "tester"
    assert identity.identify(secrets.token_hex(16)) is None and identity.identify("") is None

    # revoked: gone at once when asked fresh, and after CACHE_SECONDS when not
    r = requests.delete(f"{hub.api}/users/ada/tokens/{ada['id']}", headers={"Authorization": f"token {hub.tester}"},
                        timeout=10)
    assert r.status_code == 204, r.text
    assert identity.identify(ada["token"], fresh=True) is None
    # expired
    short = _token(hub, "ada", expires_in=1)
    assert identity.identify(short["token"], fresh=True) is not None
    time.sleep(2.1)
    assert identity.identify(short["token"], fresh=True) is None


def test_a_hub_that_does_not_answer_is_one_named_error(hub):
    (closed,) = hubs.free_ports(1)
    with pytest.raises(HubUnreachable, match=f"127.0.0.1:{closed}"):
        HubIdentity(f"http://127.0.0.1:{closed}/hub/api", hub.tester).identify("some-token")


def test_a_service_outside_the_hub_says_which_variable_is_missing(monkeypatch):
    for name in ("JUPYTERHUB_API_URL", "JUPYTERHUB_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(UsageError, match=r"\$JUPYTERHUB_API_URL is not set.*gradekit hub-config"):
        service_settings(COURSE)


def test_scope_and_role_names_are_ones_the_hub_accepts():
    from jupyterhub.roles import _role_name_pattern
    from jupyterhub.scopes import _custom_scope_pattern

    for course in ("transformers101", "CS 231n (2026)", "101-intro", "ü"):
        assert _custom_scope_pattern.match(instructor_scope(course)), instructor_scope(course)
        assert _role_name_pattern.match(instructor_role(course)), instructor_role(course)
    assert instructor_scope("A.B") != instructor_scope("another")
