"""The hub exchange against a real JupyterHub: students known by their hub login, every attack refused.

A hub on loopback (the dummy authenticator: no Unix account for anyone) with the exchange as a
service it starts (``gradekit hub-exchange``), the course's own service token in the instructors'
role, and students ``ada``, ``bob``, ``cy``, ``dee`` and ``eve`` (who attacks). The course side is
gradekit.exchange.hub.course.HubExchange, the students' side nbgrader's own commands with
gradekit.exchange.hub.student's classes and the student's hub token, as a student's server runs them.
Every attack is a plain HTTP request with eve's own token, while ``gradekit serve`` grades through
the exchange: each is refused with one line, bob's grade and feedback stay as they were, eve's own
earlier hand-ins are kept, and what eve did is on record. (``cy``, ``dee``: the batch way and the
policies, in test_serve_hub.py.)
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import secrets
import struct
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import hubs
import nbformat
import processes
import pytest
from conftest import ASSIGNMENT, NOTEBOOK, SECRET, VENV_BIN, CourseDir, known_sources, with_solutions

pytest.importorskip("jupyterhub")
requests = pytest.importorskip("requests")

from gradekit.exchange.hub.course import WAIT  # noqa: E402
from gradekit.web.auth import instructor_role, instructor_scope  # noqa: E402

pytestmark = pytest.mark.slow

A = ASSIGNMENT
COURSE = "transformers101"
GRADEKIT, NBGRADER = str(VENV_BIN / "gradekit"), str(VENV_BIN / "nbgrader")
STUDENTS = ("ada", "bob", "cy", "dee", "eve")
MAX_MB = 2  # small limits, so that going over them is quick to test (the defaults: test_the_limits_by_default)
PER_MINUTE = 20  # tries a student may make a minute: room for every attack of one test


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """The course's hub as ``gradekit hub-config --shape one-account --write`` writes it (its exchange's limits
    small, gradekit serve left out: the tests start their own), started as it is; each person's token taken
    with the password hub-config made for them, through the hub's login, as they would."""
    import csv

    import hub_kernel
    import unix_users

    reason = hubs.unavailable()
    if reason:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("hub-exchange")
    port, hub_port, api_port, grade_port, report_port, exchange_port = hubs.free_ports(6)
    folder = base / "jupyterhub"
    course = CourseDir.create(base / "course", STUDENTS)
    (course.root / ".gradekit").mkdir(exist_ok=True)
    (course.root / ".gradekit" / "secret").write_text(SECRET)
    course.generate()
    course.run(GRADEKIT, "hub-config", A, "--shape", "one-account", "--write", "--dir", str(folder), "--deploy",
               str(unix_users.DEPLOY), "--instructors", "prof", "--account", "nobody",   # no server is started
               "--port", str(port), "--hub-port", str(hub_port), "--proxy-api-port", str(api_port),
               "--grade-port", str(grade_port), "--report-port", str(report_port), "--exchange-port",
               str(exchange_port), "--max-mb", str(MAX_MB), "--max-files", "20", "--per-minute", str(PER_MINUTE),
               "--no-serve")
    h = hubs.Hub(folder / "test-state", folder / "jupyterhub_config.py",
                 env={"PATH": f"{unix_users.STUDENT_BIN}:/usr/bin:/bin", "HOME": "/root"})
    try:
        h.start()
        h.wait_for("hub exchange of")
        h.url, h.api = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{hub_port}/hub/api"
        h.service = f"{h.url}/services/gradekit-exchange/"
        h.service_port = exchange_port
        h.store = folder / "state" / "exchange"
        h.folder = folder
        h.course = course
        with open(folder / "new-passwords.csv", newline="") as fh:
            passwords = {row["name"]: row["password"] for row in csv.DictReader(fh)}
        h.sessions = {s: hub_kernel.login(h.url, s, passwords[s]) for s in (*STUDENTS, "prof")}
        h.tokens = {s: _token(h, s)["token"] for s in (*STUDENTS, "prof")}
        yield h
    finally:
        h.close()


def _token(hub, user: str, **body) -> dict:
    """A token of ``user``'s own, asked for with their session (as the hub's token page does)."""
    http = hub.sessions[user]
    xsrf = next(c.value for c in http.cookies if c.name == "_xsrf" and c.path.startswith("/hub"))
    r = http.post(f"{hub.url}/hub/api/users/{user}/tokens", json={"note": "test", **body},
                  headers={"X-XSRFToken": xsrf}, timeout=10)
    assert r.status_code in (200, 201), r.text
    return r.json()


def _revoke(hub, user: str, token_id: str) -> None:
    http = hub.sessions[user]
    xsrf = next(c.value for c in http.cookies if c.name == "_xsrf" and c.path.startswith("/hub"))
    http.delete(f"{hub.url}/hub/api/users/{user}/tokens/{token_id}", headers={"X-XSRFToken": xsrf},
                timeout=10).raise_for_status()


def _exchange(hub):
    from gradekit.course import Course
    from gradekit.exchange.exchanges import exchange_of

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


def _handin(hub, who: str, files: dict[str, bytes], key: str | None = None, path: str = f"handins/{A}",
            **kw) -> requests.Response:
    return _call(hub, who, "POST", path, data=_zip(files), headers={"X-Gradekit-Key": key or secrets.token_hex(16)},
                 **kw)


@functools.cache
def _lying_bomb(name: str = "bomb.ipynb", real: int = 256 << 20, claimed: int = 1000) -> bytes:
    """A zip bomb whose headers lie: 256 MiB of zeros (250 KiB deflated), said to unpack to 1000 bytes,
    in the local header and in the central directory alike (the ratio check sees nothing wrong). Made once
    per process: deflating the 256 MiB takes a second of CPU, and a flood sends the same bytes again."""
    data = bytearray(_zip({name: b"\0" * real}))
    struct.pack_into("<I", data, 22, claimed)                    # the local header's uncompressed size
    central = data.rfind(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, claimed)          # the central directory's
    return bytes(data)


def Serve(course, log: Path, *assignments: str) -> processes.Serve:
    """``gradekit serve`` on the hub's course as a child process, its log read line by line."""
    env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}", GRADEKIT_SECRET=SECRET)
    return processes.Serve(GRADEKIT, course.root, log, *(assignments or (A,)), env=env)


def _put(student: Student, notebook) -> None:
    (student.home / A / f"{NOTEBOOK}.ipynb").write_text(nbformat.writes(notebook))


def _feedback(student: Student, timeout: float = 30) -> tuple[float, list[Path]]:
    """Fetch feedback until a new page arrives: (seconds it took, the new pages)."""
    before = set((student.home / A / "feedback").glob("*/*.html"))
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        student.nbgrader("fetch_feedback", A, check=False)
        pages = set((student.home / A / "feedback").glob("*/*.html"))
        if pages - before:
            return time.monotonic() - started, sorted(pages - before)
        time.sleep(0.2)
    raise AssertionError(f"{student.name}: no new feedback within {timeout} s")


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
    (folder / "receipt.json").write_text(json.dumps({"handin": str(handin.ref)}))
    assert exchange.give_feedback("ada", A, folder, {NOTEBOOK: "<p>ada's page</p>"})
    assert "feedback ready to be fetched" in ada.nbgrader("list", "--cached").stderr
    ada.nbgrader("fetch_feedback", A)
    pages = sorted((ada.home / A / "feedback").glob("*/*.html"))
    assert [p.read_text() for p in pages] == ["<p>ada's page</p>"]
    assert "feedback already fetched" in ada.nbgrader("list", "--cached").stderr
    bob.nbgrader("fetch_feedback", A)
    assert not list((bob.home / A).glob("feedback/*/*.html"))
    listing = {x.assignment: x for x in exchange.listing("ada")}
    place = handin.ref.place
    assert listing[A].released and listing[A].handins == (place,) and listing[A].feedback == (place,)
    assert exchange.listing("bob")[0].handins == ()
    # the store is the service's account's alone
    assert hub.store.stat().st_mode & 0o077 == 0


def test_every_attack_is_refused_with_one_line_and_nothing_of_bob_s_changes(hub, tmp_path):
    from gradekit.exchange.ledger import Ledger

    course = hub.course
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    bob, eve = Student(hub, "bob", tmp_path / "bob"), Student(hub, "eve", tmp_path / "eve")
    for s in (bob, eve):
        s.nbgrader("fetch_assignment", A)
    bob_release = _call(hub, "bob", "GET", f"release/{A}")
    assert bob_release.status_code == 200
    serve = Serve(course, tmp_path / "serve.log")
    try:
        # bob's full marks, and eve's own hand-in (a mistake), both graded, before eve attacks
        _put(bob, course.answer_key("bob"))
        bob.nbgrader("submit", A)
        _put(eve, with_solutions(course.answer_key("eve"), known_sources("mistakes/softmax_wrong_axis")))
        eve.nbgrader("submit", A)
        serve.wait_for(r"graded bob self_attention attempt \d+: 20/20")
        serve.wait_for(r"graded eve self_attention attempt \d+: 17/20")
        _feedback(bob)
        bob_id = max(h["id"] for a in _call(hub, "bob", "GET", "assignments").json()["assignments"]
                     for h in a["handins"])
        bob_grade = course.results(["bob"])["bob"]
        bob_feedback = _call(hub, "bob", "GET", f"feedback/{A}").json()
        eve_before = [h["id"] for a in _call(hub, "eve", "GET", "assignments").json()["assignments"]
                      for h in a["handins"]]
        assert bob_feedback["feedback"] and eve_before
        with Ledger(course.course) as ledger:
            bob_ledger = [(e.ref, e.sha256, e.number, e.receipt) for e in ledger.entries(A, "bob")]
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
        attack("the hand-ins of an assignment", _call(hub, "eve", "GET", f"handins/{A}"), 403)
        # replacing a classmate's hand-in (a POST to a number hands in an assignment of that name: none)
        for method in ("PUT", "DELETE", "PATCH"):
            attack(f"{method} bob's hand-in", _call(hub, "eve", method, f"handins/{bob_id}", data=b"x"), 403)
        attack("POST over bob's hand-in", _handin(hub, "eve", {f"{NOTEBOOK}.ipynb": b"{}"}, path=f"handins/{bob_id}"),
               404)
        # an instructor's endpoint with a student's token
        attack("release", _call(hub, "eve", "PUT", f"release/{A}/bob", data=_zip({"x.ipynb": b"{}"})), 403)
        attack("the releases", _call(hub, "eve", "GET", "releases"), 403)
        attack("the hand-ins", _call(hub, "eve", "GET", "handins"), 403)
        attack("feedback", _call(hub, "eve", "PUT", f"feedback/{bob_id}", json={"pages": {NOTEBOOK: "0/20"}}), 403)
        # a forged, an expired and a revoked token, each trying to hand in as bob and to give bob feedback
        hub.tokens["forged"] = secrets.token_hex(16)
        short = _token(hub, "eve", expires_in=1)
        hub.tokens["expired"] = short["token"]
        revoked = _token(hub, "eve")
        hub.tokens["revoked"] = revoked["token"]
        assert _call(hub, "revoked", "GET", "assignments").status_code == 200
        _revoke(hub, "eve", revoked["id"])
        time.sleep(2.1)
        for token in ("forged", "expired", "revoked"):
            attack(f"{token} token", _handin(hub, token, {f"{NOTEBOOK}.ipynb": b"{}"}, params={"user": "bob"}), 401)
            attack(f"{token} token's feedback",
                   _call(hub, token, "PUT", f"feedback/{bob_id}", json={"pages": {NOTEBOOK: "0/20"}}), 401)
        # an oversized upload, a body over twice the limit, zip bombs (one whose headers lie), too many files
        attack("oversized", _handin(hub, "eve", {"data.bin": secrets.token_bytes(MAX_MB * (1 << 20) + 4096)}), 413)
        over = secrets.token_bytes(int(2.5 * MAX_MB * (1 << 20)))
        attack("over twice the limit", _call(hub, "eve", "POST", f"handins/{A}", data=over,
                                             headers={"X-Gradekit-Key": secrets.token_hex(16)}), 413)
        attack("zip bomb", _handin(hub, "eve", {"bomb.ipynb": b"\0" * (50 << 20)}), 413)
        attack("lying zip bomb", _call(hub, "eve", "POST", f"handins/{A}", data=_lying_bomb(),
                                       headers={"X-Gradekit-Key": secrets.token_hex(16)}), 400)
        attack("too many files", _handin(hub, "eve", {f"f{i}.txt": b"x" for i in range(21)}), 413)
        # '..' and absolute paths
        attack("..", _handin(hub, "eve", {"../../bob/x.ipynb": b"{}"}), 400)
        attack("absolute", _handin(hub, "eve", {"/etc/passwd": b"x"}), 400)

        for what, response, status in attacks:
            assert response.status_code == status, (what, response.status_code, response.text)
            line = response.json()["error"]
            assert line and "\n" not in line and "Traceback" not in line, (what, line)
        said = {what: response.json()["error"] for what, response, _status in attacks}
        # exactly what eve reads, where the line is the point
        assert said["over twice the limit"] == (
            "the hand-in is 5.0 MiB, over the limit of 2 MiB: leave out large data files and hand in again")
        assert said["lying zip bomb"] == "hand-in refused: bomb.ipynb: cannot be unpacked"
        assert said["zip bomb"].startswith("hand-in refused: ") and "over the limit" in said["zip bomb"]
        assert said["as bob"] == "eve may not hand in as bob: a hand-in counts for whoever's token sent it"
        assert said["the hand-ins of an assignment"].startswith("eve may not read a hand-in's files: only the "
                                                                "instructors of transformers101 may")
        assert said["POST over bob's hand-in"] == (
            f"'{bob_id}' was not released to eve: fetch it first, or ask your instructor")

        # the service saw eve's claim and said so; nothing else of hers reached it
        report = serve.wait_for(r"another student's name")[0]
        assert "bob" in report and "eve" in report and "inbound/" not in report
        time.sleep(2)                                     # anything the service were to take in, it has
        took_in = [line for line in serve.lines() if re.search(r" (received|graded) (bob|eve) ", line)]
        assert len(took_in) == 4, took_in                 # bob's and eve's own hand-ins, each received and graded
    finally:
        assert serve.stop() == 0
    # nothing of bob's changed: his release, his hand-ins, his grade, his feedback
    assert _call(hub, "bob", "GET", f"release/{A}").content == bob_release.content
    with Ledger(course.course) as ledger:
        assert [(e.ref, e.sha256, e.number, e.receipt) for e in ledger.entries(A, "bob")] == bob_ledger
        (refused,) = [e for e in ledger.entries(A) if e.kind == "impersonation"]
    after = course.results(["bob"])["bob"]
    assert (after.score, after.handin, after.timestamp, after.digest) == (
        bob_grade.score, bob_grade.handin, bob_grade.timestamp, bob_grade.digest)
    with course.gradebook() as gb:
        assert gb.find_submission(A, "bob").score == 20
    assert _call(hub, "bob", "GET", f"feedback/{A}").json() == bob_feedback
    # eve's own earlier hand-in is kept, as it was graded
    assert [h["id"] for a in _call(hub, "eve", "GET", "assignments").json()["assignments"]
            for h in a["handins"]] == eve_before
    assert course.results(["eve"])["eve"].score == 17
    # eve's claim is on record, refused, and reported as the filesystem exchange reports it
    assert refused.account == "eve" and refused.named == "bob" and not refused.accepted
    assert refused.student == "eve"
    log = hub.text()
    assert log.count("refused eve") >= len([a for a in attacks if "token" not in a[0]])   # the token attacks: no caller


def test_a_backdated_hand_in_counts_when_it_arrived(hub):
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    r = _handin(hub, "ada", {f"{NOTEBOOK}.ipynb": b"{}", "timestamp.txt": b"2020-01-01 00:00:00.000000 UTC"})
    assert r.status_code == 201, r.text
    (handin,) = [h for h in exchange.look(None, [A]) if h.ref.key == str(r.json()["id"])]
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
    codes = [_handin(hub, "ada", {f"{NOTEBOOK}.ipynb": b"{}"}).status_code for _ in range(PER_MINUTE + 2)]
    assert codes.count(429) >= 2 and set(codes) == {201, 429}, codes
    over = _handin(hub, "ada", {f"{NOTEBOOK}.ipynb": b"{}"})
    assert over.status_code == 429 and f"the limit is {PER_MINUTE} a minute" in over.json()["error"]
    assert int(over.headers["Retry-After"]) > 0
    assert len(_call(hub, "prof", "GET", "handins").json()["handins"]) == earlier + codes.count(201)
    assert _handin(hub, "bob", {f"{NOTEBOOK}.ipynb": b"{}"}).status_code == 201      # the class goes on


def test_an_assignment_named_with_digits_is_handed_in_and_a_hand_in_list_is_refused_in_one_line(hub):
    from gradekit.untrusted import pack_zip

    exchange = _exchange(hub)
    exchange.client.request("PUT", "release/2024/cy", pack_zip({"hw.ipynb": b"{}"}))
    handed = _handin(hub, "cy", {"hw.ipynb": b'{"cy": 1}'}, path="handins/2024")
    assert handed.status_code == 201, handed.text
    assert handed.json()["assignment"] == "2024" and handed.json()["user"] == "cy"
    (handin,) = exchange.look(None, ["2024"])
    assert handin.accepted and handin.student == "cy" and handin.files["hw.ipynb"] == b'{"cy": 1}'
    # a student's GET of handins/<assignment> (or of a number): a refusal in one line, not a server error
    for path in (f"handins/{A}", "handins/2024", f"handins/{handin.ref.key}"):
        r = _call(hub, "cy", "GET", path)
        assert r.status_code == 403 and r.json()["error"].startswith("cy may not read a hand-in's files"), r.text
    r = _call(hub, "prof", "GET", f"handins/{A}")
    assert r.status_code == 404 and "hand-ins are numbered" in r.json()["error"], r.text


def test_refused_tries_count_toward_the_rate_and_leave_nothing_past_it(hub):
    """A student who hands in again and again under a classmate's name is refused after PER_MINUTE tries:
    past them nothing is recorded, one line is logged, and their classmates hand in as ever."""
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    mark = len(hub.text())
    codes = [_handin(hub, "cy", {f"{NOTEBOOK}.ipynb": b"{}"}, params={"user": "bob"}).status_code
             for _ in range(PER_MINUTE + 10)]
    refused = codes.index(429)              # cy handed in once in the last minute (the test above): it counts
    assert PER_MINUTE - 1 <= refused <= PER_MINUTE and codes == [403] * refused + [429] * (len(codes) - refused)
    claims = [h for h in exchange.look(None, [A]) if h.kind == "impersonation" and h.account == "cy"]
    assert len(claims) == refused
    log = hub.text()[mark:]
    assert log.count("refused cy") == refused + 1 and log.count("are not logged") == 1, log[-3000:]
    proper = _handin(hub, "cy", {f"{NOTEBOOK}.ipynb": b"{}"})          # even a proper hand-in waits now
    assert proper.status_code == 429 and "hand in again in" in proper.json()["error"]
    assert _handin(hub, "bob", {f"{NOTEBOOK}.ipynb": b"{}"}).status_code == 201


def test_the_course_waits_for_a_hand_in_and_hears_of_it_at_once(hub):
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    events = exchange.events()
    events.start()
    try:
        assert events.names.get(timeout=5) is None        # the first full look
        time.sleep(1.0)                                   # the long poll is waiting now
        sent = time.monotonic()
        number = _handin(hub, "bob", {f"{NOTEBOOK}.ipynb": b"{}"}).json()["id"]
        # heard of before the waiting long poll would have ended by itself (WAIT s): the hand-in woke it
        # (how soon: bench/hub.py, each hand-in's latency through the exchange)
        assert events.names.get(timeout=WAIT / 2) == str(number)
        print(json.dumps({"handin_heard_after_s": round(time.monotonic() - sent, 2)}))
    finally:
        events.stop()


def test_a_token_that_may_not_use_the_service_is_refused(hub):
    narrow = _token(hub, "ada", scopes=["read:users:name!user=ada"])
    hub.tokens["narrow"] = narrow["token"]
    r = _call(hub, "narrow", "GET", "assignments")
    assert r.status_code == 403 and "may not use the service gradekit-exchange" in r.json()["error"], r.text


def test_doctor_checks_that_the_students_tokens_reach_the_exchange_and_read_none_of_the_course(hub, tmp_path):
    """gradekit doctor on a hub exchange deployment, given the hub's config and the account every student's
    server runs as: the scopes that let a server's token use the service, and, as that account, no
    student's release, hand-in, grading or feedback in the course."""
    import unix_users

    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    course, config = hub.course, hub.folder / "jupyterhub_config.py"
    (shared,) = unix_users.create(["gkhubjovyan"])   # not test_hub_exchange.py's gkjovyan
    opened: list[tuple[Path, int]] = []
    try:
        def doctor(hub_config: Path) -> subprocess.CompletedProcess:
            return course.run(GRADEKIT, "doctor", "--student-account", shared.name, "--hub-config", str(hub_config),
                              check=False)

        # as hub-config writes it: the servers' tokens and the students' role may use the exchange
        fixed = config
        first = doctor(fixed)
        assert "server_token_scopes" not in first.stdout and "do not hold" not in first.stdout, first.stdout
        assert "has no service" not in first.stdout, first.stdout
        # a config whose servers would get tokens without the exchange's scope: said, with the fix
        import re

        broken = tmp_path / "broken" / "jupyterhub_config.py"
        broken.parent.mkdir()
        broken.write_text(re.sub(r"c\.Spawner\.server_token_scopes = \[.*?\]\n", "", config.read_text(), flags=re.S))
        said = doctor(broken).stdout
        assert ("the token each student's server gets cannot use the hub exchange: "
                "access:services!service=gradekit-exchange is not in c.Spawner.server_token_scopes") in said, said
        # and a role of the students' without it
        narrow = tmp_path / "narrow" / "jupyterhub_config.py"
        narrow.parent.mkdir()
        narrow.write_text(fixed.read_text().replace(
            '{"name": "user", "scopes": ["self", "access:services!service=gradekit-exchange"]}',
            '{"name": "user", "scopes": ["self"]}'))
        said = doctor(narrow).stdout
        assert "ada, bob, cy, dee, eve do not hold access:services!service=gradekit-exchange" in said, said
        # the students' account reads every student's release: named, as that account finds it
        for folder in [*reversed(course.root.parents[:4]), course.root, course.root / "release"]:
            opened.append((folder, folder.stat().st_mode & 0o7777))
            os.chmod(folder, folder.stat().st_mode | 0o005)
        assert shared.may("ls", f"'{course.root / 'release'}'")
        leak = doctor(fixed)
        assert f"the students' account {shared.name} can read {course.root / 'release'}" in leak.stdout, leak.stdout
        while opened:
            folder, mode = opened.pop()
            os.chmod(folder, mode)
        assert f"can read {course.root / 'release'}" not in doctor(fixed).stdout
    finally:
        for folder, mode in reversed(opened):
            os.chmod(folder, mode)
        unix_users.remove([shared.name])


def test_a_hub_killed_with_sigkill_takes_its_exchange_with_it_and_the_next_one_starts(hub):
    """The hub killed (-9): its exchange service stops by itself (gradekit.web.lifetime), so that the next
    hub's exchange gets its port, and what was handed in is still there."""
    (pid,) = [p for p, command in processes.descendants(hub.proc.pid).items()
              if f"hub-exchange --course-id {COURSE}" in command]           # the hub's own child, none of another
    handed = _call(hub, "prof", "GET", "handins").json()["handins"]
    hub.kill()
    started = time.monotonic()
    while processes.alive(pid) and time.monotonic() - started < 15:
        time.sleep(0.05)
    took = time.monotonic() - started
    print(json.dumps({"exchange_stops_after_its_hub_died_s": round(took, 2)}))
    assert not processes.alive(pid), "the exchange still runs 15 s after its hub died"
    hub.start()
    hub.wait_for("hub exchange of")                                      # its port was free at once
    assert _call(hub, "prof", "GET", "handins").json()["handins"] == handed   # nothing lost
