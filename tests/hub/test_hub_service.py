"""The hub exchange against a real JupyterHub: students known by their hub login, every attack refused.

A hub on loopback (the dummy authenticator: no Unix account for anyone) with the exchange as a
service it starts (``gradekit hub-exchange``), the course's own service token in the instructors'
role, and students ``ada``, ``bob`` and ``eve`` (who attacks). The course side is
gradekit.handout.hub.HubExchange, the students' side nbgrader's own commands with
gradekit.handout.hubclient's classes and the student's hub token, as a student's server runs them.
Every attack is a plain HTTP request with eve's own token: each is refused with one line, nothing
of bob's changes, and what eve did is on record.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import hubs
import pytest
from conftest import ASSIGNMENT, NOTEBOOK, SECRET, VENV_BIN, CourseDir

pytest.importorskip("jupyterhub")
requests = pytest.importorskip("requests")

from gradekit.hub.auth import instructor_role, instructor_scope  # noqa: E402

pytestmark = pytest.mark.slow

A = ASSIGNMENT
COURSE = "transformers101"
HUB_BIN = Path(sys.executable).parent / "jupyterhub"
GRADEKIT, NBGRADER = str(VENV_BIN / "gradekit"), str(VENV_BIN / "nbgrader")
STUDENTS = ("ada", "bob", "eve")
MAX_MB = 2  # small limits, so that going over them is quick to test (the defaults: test_the_limits_by_default)

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
c.Authenticator.allowed_users = {{"prof", "ada", "bob", "eve"}}
c.JupyterHub.custom_scopes = {{"{scope}": {{"description": "teaches {course}"}}}}
c.JupyterHub.load_groups = {{"{role}": {{"users": ["prof"]}}}}
c.JupyterHub.load_roles = [
    {{"name": "{role}", "groups": ["{role}"], "services": ["gradekit"],
      "scopes": ["{scope}", "access:services!service=gradekit-exchange"]}},
    {{"name": "user", "scopes": ["self", "access:services!service=gradekit-exchange"]}},
    {{"name": "tester", "services": ["tester"], "scopes": ["admin:users", "tokens"]}},
]
c.JupyterHub.services = [
    {{"name": "tester", "api_token": "{tester}"}},
    {{"name": "gradekit", "api_token": "{course_token}"}},
    {{"name": "gradekit-exchange", "url": "http://127.0.0.1:{service_port}",
      "command": ["{gradekit}", "hub-exchange", "--course-id", "{course}", "--store", "{store}",
                  "--max-mb", "{max_mb}", "--max-files", "20"],
      "environment": {{"PATH": "{venv_bin}:/usr/bin:/bin"}}}},
]
'''


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    reason = hubs.unavailable(HUB_BIN)
    if reason:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("hub-exchange")
    port, hub_port, api_port, service_port = hubs.free_ports(4)
    tester, course_token = secrets.token_hex(16), secrets.token_hex(16)
    store = base / "store"
    config = CONFIG.format(port=port, hub_port=hub_port, api_port=api_port, chp=hubs.CHP, state=base / "hub",
                           scope=instructor_scope(COURSE), role=instructor_role(COURSE), course=COURSE,
                           tester=tester, course_token=course_token, service_port=service_port, gradekit=GRADEKIT,
                           store=store, max_mb=MAX_MB, venv_bin=VENV_BIN)
    h = hubs.Hub(base / "hub", config, hub_bin=HUB_BIN)
    try:
        h.start()
        h.wait_for("hub exchange of")
        h.url, h.api, h.tester = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{hub_port}/hub/api", tester
        h.service = f"{h.url}/services/gradekit-exchange/"
        h.store = store
        course = CourseDir.create(base / "course", STUDENTS)
        (course.root / ".gradekit").mkdir(exist_ok=True)
        (course.root / ".gradekit" / "hub-token").write_text(course_token)
        with open(course.root / "nbgrader_config.py", "a") as fh:
            fh.write(f'\nc.Gradekit.exchange = "hub"\nc.GradekitHubExchange.url = "{h.service}"\n'
                     'c.GradekitHubExchange.token_file = ".gradekit/hub-token"\n')
        course.generate()
        h.course = course
        h.tokens = {s: _token(h, s)["token"] for s in (*STUDENTS, "prof")}
        yield h
    finally:
        h.close()


def _token(hub, user: str, **body) -> dict:
    r = requests.post(f"{hub.api}/users/{user}/tokens", json={"note": "test", **body},
                      headers={"Authorization": f"token {hub.tester}"}, timeout=10)
    assert r.status_code in (200, 201), r.text
    return r.json()


def _exchange(hub):
    from gradekit.course import Course
    from gradekit.handout.exchanges import exchange_of

    return exchange_of(Course.load(hub.course.root))


class Student:
    """A student's server: nbgrader's own commands, the hub exchange's classes, their own hub token."""

    def __init__(self, hub, name: str, home: Path):
        self.hub, self.name, self.home = hub, name, home
        home.mkdir(parents=True, exist_ok=True)
        config = subprocess.run([GRADEKIT, "--course", str(hub.course.root), "student-config"], capture_output=True,
                                text=True, check=True, env={**os.environ, "GRADEKIT_SECRET": SECRET}).stdout
        (home / "nbgrader_config.py").write_text(config)

    def nbgrader(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        env = {"HOME": str(self.home), "PATH": f"{VENV_BIN}:/usr/bin:/bin", "LANG": "C.UTF-8",
               "JUPYTERHUB_API_TOKEN": self.hub.tokens[self.name]}
        proc = subprocess.run([NBGRADER, *args], cwd=self.home, env=env, capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError(f"{self.name}: nbgrader {args} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc


def _call(hub, who: str, method: str, path: str, **kw) -> requests.Response:
    headers = {"Authorization": f"token {hub.tokens[who]}", **kw.pop("headers", {})}
    return requests.request(method, f"{hub.service}api/{COURSE}/{path}", headers=headers, timeout=30, **kw)


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return out.getvalue()


def _handin(hub, who: str, files: dict[str, bytes], key: str | None = None, **kw) -> requests.Response:
    return _call(hub, who, "POST", f"handins/{A}", data=_zip(files),
                 headers={"X-Gradekit-Key": key or secrets.token_hex(16)}, **kw)


def test_a_class_through_the_hub_exchange(hub, tmp_path):
    exchange = _exchange(hub)
    assert exchange.ready() is None
    assert exchange.publish(A).protection == {s: "hub" for s in STUDENTS}
    from gradekit.errors import ExchangeFailure

    with pytest.raises(ExchangeFailure, match="already ha.* add --force"):
        exchange.publish(A)
    assert exchange.publish(A, force=True).protection and exchange.released() == [A]

    ada, bob = Student(hub, "ada", tmp_path / "ada"), Student(hub, "bob", tmp_path / "bob")
    listed = ada.nbgrader("list").stderr
    assert f"{COURSE} {A}" in listed and "already downloaded" not in listed, listed
    for s in (ada, bob):
        s.nbgrader("fetch_assignment", A)
        fetched = (s.home / A / f"{NOTEBOOK}.ipynb").read_bytes()
        assert fetched == hub.course.release_path(s.name).read_bytes()      # their own numbers
    assert (ada.home / A / f"{NOTEBOOK}.ipynb").read_bytes() != (bob.home / A / f"{NOTEBOOK}.ipynb").read_bytes()
    assert "already downloaded" in ada.nbgrader("list").stderr

    before = time.time()
    out = ada.nbgrader("submit", A).stderr
    assert "Submitted as:" in out, out
    handins = [h for h in exchange.look(None, [A]) if h.account == "ada"]
    assert len(handins) == 1 and handins[0].accepted and handins[0].student == "ada"
    handin = handins[0]
    arrived = handin.arrived.replace(tzinfo=__import__("datetime").timezone.utc).timestamp()
    assert before - 1 < arrived < time.time() + 1                               # the service's clock
    assert handin.counted(60) == handin.arrived
    assert f"{NOTEBOOK}.ipynb" in handin.files and handin.sha256 == handin.digest
    assert "no feedback available" in ada.nbgrader("list", "--cached").stderr

    # feedback back, to ada alone
    folder = tmp_path / "graded" / "submitted"
    folder.mkdir(parents=True)
    (folder / "receipt.json").write_text(json.dumps({"handin": handin.name}))
    assert exchange.give_feedback("ada", A, folder, {NOTEBOOK: "<p>ada's page</p>"})
    assert "feedback ready to be fetched" in ada.nbgrader("list", "--cached").stderr
    ada.nbgrader("fetch_feedback", A)
    pages = sorted((ada.home / A / "feedback").glob("*/*.html"))
    assert [p.read_text() for p in pages] == ["<p>ada's page</p>"]
    assert "feedback already fetched" in ada.nbgrader("list", "--cached").stderr
    bob.nbgrader("fetch_feedback", A)
    assert not list((bob.home / A).glob("feedback/*/*.html"))
    listing = {x.assignment: x for x in exchange.listing("ada")}
    assert listing[A].released and listing[A].handins == (handin.name,) and listing[A].feedback == (handin.name,)
    assert exchange.listing("bob")[0].handins == ()
    # the store is the service's account's alone
    assert hub.store.stat().st_mode & 0o077 == 0


def test_every_attack_is_refused_with_one_line_and_nothing_of_bob_s_changes(hub):
    from gradekit.intake.ledger import report_lines

    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    bob_release = _call(hub, "bob", "GET", f"release/{A}")
    assert bob_release.status_code == 200
    handed = _handin(hub, "bob", {f"{NOTEBOOK}.ipynb": b'{"bob": 1}'}, key="bob-key-00000001")
    assert handed.status_code == 201, handed.text
    bob_id = handed.json()["id"]
    bob_before = [(h.name, h.sha256) for h in exchange.look(None, [A]) if h.account == "bob"]
    attacks: list[tuple[str, requests.Response, int]] = []

    def attack(what: str, response: requests.Response, status: int) -> None:
        attacks.append((what, response, status))

    # a hand-in under a classmate's name
    attack("as bob", _handin(hub, "eve", {f"{NOTEBOOK}.ipynb": b"{}"}, params={"user": "bob"}), 403)
    # reading or listing a classmate's release or feedback
    attack("bob's release", _call(hub, "eve", "GET", f"release/{A}", params={"user": "bob"}), 403)
    attack("bob's release by path", _call(hub, "eve", "GET", f"release/{A}/bob"), 403)
    attack("bob's feedback", _call(hub, "eve", "GET", f"feedback/{A}", params={"user": "bob"}), 403)
    attack("bob's listing", _call(hub, "eve", "GET", "assignments", params={"user": "bob"}), 403)
    attack("bob's listing, the instructors'", _call(hub, "eve", "GET", "listing/bob"), 403)
    attack("bob's hand-in's files", _call(hub, "eve", "GET", f"handins/{bob_id}"), 403)
    # replacing a classmate's hand-in
    for method in ("PUT", "DELETE", "POST"):
        attack(f"{method} bob's hand-in", _call(hub, "eve", method, f"handins/{bob_id}", data=b"x"), 403)
    # an instructor's endpoint with a student's token
    attack("release", _call(hub, "eve", "PUT", f"release/{A}/eve", data=_zip({"x.ipynb": b"{}"})), 403)
    attack("the releases", _call(hub, "eve", "GET", "releases"), 403)
    attack("the hand-ins", _call(hub, "eve", "GET", "handins"), 403)
    attack("feedback", _call(hub, "eve", "PUT", f"feedback/{bob_id}", json={"pages": {NOTEBOOK: "20/20"}}), 403)
    # a forged, an expired and a revoked token
    hub.tokens["forged"] = secrets.token_hex(16)
    attack("forged token", _call(hub, "forged", "GET", "assignments"), 401)
    short = _token(hub, "eve", expires_in=1)
    hub.tokens["expired"] = short["token"]
    revoked = _token(hub, "eve")
    hub.tokens["revoked"] = revoked["token"]
    assert _call(hub, "revoked", "GET", "assignments").status_code == 200
    requests.delete(f"{hub.api}/users/eve/tokens/{revoked['id']}", headers={"Authorization": f"token {hub.tester}"},
                    timeout=10).raise_for_status()
    attack("revoked token", _call(hub, "revoked", "GET", "assignments"), 401)
    time.sleep(2.1)
    attack("expired token", _handin(hub, "expired", {f"{NOTEBOOK}.ipynb": b"{}"}), 401)
    # an oversized upload, a zip bomb, too many files
    attack("oversized", _handin(hub, "eve", {"data.bin": secrets.token_bytes(MAX_MB * (1 << 20) + 4096)}), 413)
    attack("zip bomb", _handin(hub, "eve", {"bomb.ipynb": b"\0" * (50 << 20)}), 413)
    attack("too many files", _handin(hub, "eve", {f"f{i}.txt": b"x" for i in range(21)}), 413)
    # '..' and absolute paths
    attack("..", _handin(hub, "eve", {"../../bob/x.ipynb": b"{}"}), 400)
    attack("absolute", _handin(hub, "eve", {"/etc/passwd": b"x"}), 400)

    for what, response, status in attacks:
        assert response.status_code == status, (what, response.status_code, response.text)
        line = response.json()["error"]
        assert line and "\n" not in line and "Traceback" not in line, (what, line)
    # nothing of bob's changed; eve's claim is on record, and reported as the filesystem exchange reports it
    assert [(h.name, h.sha256) for h in exchange.look(None, [A]) if h.account == "bob"] == bob_before
    assert _call(hub, "bob", "GET", f"release/{A}").content == bob_release.content
    (refused,) = [h for h in exchange.look(None, [A]) if h.kind == "impersonation"]
    assert refused.account == "eve" and refused.named == "bob" and not refused.accepted
    from gradekit.intake.ledger import Entry

    entry = Entry(refused.assignment, refused.name, refused.ino, refused.named, refused.account, refused.student,
                  None, None, None, None, None, None, refused.problem, refused.kind, "", None, None, None, None, None)
    (line,) = report_lines(entry, 60)
    assert "another student's name" in line and "bob" in line and "eve" in line
    log = hub.text()
    assert log.count("refused eve") >= len(attacks) - 3      # the three token attacks: no caller to name


def test_a_backdated_hand_in_counts_when_it_arrived(hub):
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    r = _handin(hub, "ada", {f"{NOTEBOOK}.ipynb": b"{}", "timestamp.txt": b"2020-01-01 00:00:00.000000 UTC"})
    assert r.status_code == 201, r.text
    (handin,) = [h for h in exchange.look(None, [A]) if h.name == r.json()["name"]]
    assert handin.counted(60) == handin.arrived and handin.arrived.year >= 2026 and handin.backdated(60)


def test_a_hand_in_sent_again_after_a_lost_answer_is_one_hand_in(hub):
    _exchange(hub).publish(A, force=True)
    first = _handin(hub, "bob", {f"{NOTEBOOK}.ipynb": b"{}"}, key="same-key-0000001")
    again = _handin(hub, "bob", {f"{NOTEBOOK}.ipynb": b"{}"}, key="same-key-0000001")
    assert first.status_code == 201 and again.status_code == 200 and again.json()["again"]
    assert first.json()["id"] == again.json()["id"]
    # the key is bob's own: eve sending it hands in as eve, and bob's stays bob's
    eve = _handin(hub, "eve", {f"{NOTEBOOK}.ipynb": b"{}"}, key="same-key-0000001")
    assert eve.status_code == 201 and eve.json()["id"] != first.json()["id"] and eve.json()["user"] == "eve"


def test_a_student_handing_in_too_often_is_told_to_wait_and_keeps_what_they_handed_in(hub):
    _exchange(hub).publish(A, force=True)
    earlier = len(_call(hub, "prof", "GET", "handins").json()["handins"])
    codes = [_handin(hub, "ada", {f"{NOTEBOOK}.ipynb": b"{}"}).status_code for _ in range(12)]
    assert codes.count(429) >= 2 and set(codes) == {201, 429}, codes
    over = _handin(hub, "ada", {f"{NOTEBOOK}.ipynb": b"{}"})
    assert over.status_code == 429 and "the limit is 10" in over.json()["error"] and over.headers["Retry-After"]
    assert len(_call(hub, "prof", "GET", "handins").json()["handins"]) == earlier + codes.count(201)
    assert _handin(hub, "bob", {f"{NOTEBOOK}.ipynb": b"{}"}).status_code == 201      # the class goes on


def test_the_course_waits_for_a_hand_in_and_hears_of_it_at_once(hub):
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    events = exchange.events()
    events.start()
    try:
        assert events.names.get(timeout=5) is None        # the first full look
        time.sleep(1.0)                                   # the long poll is waiting now
        sent = time.monotonic()
        name = _handin(hub, "bob", {f"{NOTEBOOK}.ipynb": b"{}"}).json()["name"]
        got = events.names.get(timeout=10)
        assert got == name and time.monotonic() - sent < 1.0
    finally:
        events.stop()


def test_a_token_that_may_not_use_the_service_is_refused(hub):
    narrow = _token(hub, "ada", scopes=["read:users:name!user=ada"])
    hub.tokens["narrow"] = narrow["token"]
    r = _call(hub, "narrow", "GET", "assignments")
    assert r.status_code == 403 and "may not use the service gradekit-exchange" in r.json()["error"], r.text
