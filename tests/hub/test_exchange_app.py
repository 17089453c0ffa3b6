"""The hub exchange's service in this process, over real HTTP, with a stand-in for the hub's answer about tokens.

The hub is asked whose a token is (gradekit.web.auth): here ``tok-<name>`` is the hub user <name>, and
``prof`` teaches the course; everything else is the service's own handlers, limits and store. What a
real hub adds (its proxy, its token checks) is tests/hub/test_hub_service.py's: these are the door's
rules, quick to run -- a student holds at most two uploads at once, a body never held whole in memory,
a refusal answered in one line even for a body far over the limit, past a student's rate the hub is
asked nothing more, and a student who polls is refused past their reads a minute while the class and
the course's own service read on.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import socket
import time
import threading

import hubs
import pytest
from ports import free_port

requests = pytest.importorskip("requests")
pytest.importorskip("jupyterhub")

from gradekit.web.auth import Caller, instructor_scope  # noqa: E402
from gradekit.exchange.hub.server import application, run  # noqa: E402
from gradekit.exchange.hub.wire import Limits  # noqa: E402
from gradekit.exchange.hub.store import Store  # noqa: E402
from gradekit.untrusted import pack_zip  # noqa: E402

COURSE = "c1"
LIMITS = Limits(max_mb=2, max_files=20, per_minute=6, at_once=2, reads_per_minute=8)


class Tokens:
    """``Authorization: token tok-<name>`` is the hub user <name>; counts how often the hub is asked."""

    asked = 0

    def get_token(self, handler, in_cookie=True):
        header = handler.request.headers.get("Authorization", "")
        return header.split(" ", 1)[1] if header.startswith("token ") else None

    async def get_user(self, handler, sync=False):
        return None

    async def identify_async(self, token, fresh=False):
        self.asked += 1
        if not (token or "").startswith("tok-"):
            return None
        scopes = {"access:services!service=gradekit-exchange"} | ({instructor_scope(COURSE)} if token == "tok-prof"
                                                                    else set())
        return Caller(token[4:], "user", frozenset(), frozenset(scopes))


@pytest.fixture
def service(tmp_path, capsys):
    tokens = Tokens()
    store = Store(tmp_path / "store")
    app = application(COURSE, store, LIMITS, hub_auth=tokens, hub_identity=tokens, gradekit_course_id=COURSE)
    port = free_port()
    ready, stop = threading.Event(), {}

    def serve() -> None:
        async def main() -> None:  # as `gradekit hub-exchange` runs it, but its signals
            stop["event"], stop["loop"] = asyncio.Event(), asyncio.get_running_loop()
            await run(app, "127.0.0.1", port, stop["event"], ready.set)

        asyncio.run(main())
        stop["ended"] = True

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ready.wait(10)
    base = f"http://127.0.0.1:{port}/services/gradekit-exchange/api/{COURSE}/"
    requests.put(base + "release/a1/eve", data=pack_zip({"n.ipynb": b"{}"}), headers=_as("prof")).raise_for_status()
    requests.put(base + "release/a1/bob", data=pack_zip({"n.ipynb": b"{}"}), headers=_as("prof")).raise_for_status()
    try:
        yield type("Service", (), {"base": base, "port": port, "store": store, "tokens": tokens, "capsys": capsys,
                                   "stop": stop, "thread": thread})
    finally:
        if not stop.get("ended"):
            stop["loop"].call_soon_threadsafe(stop["event"].set)
        thread.join(10)
        store.close()


def _as(user: str, **headers) -> dict:
    return {"Authorization": f"token tok-{user}", **headers}


def _key() -> dict:
    return {"X-Gradekit-Key": secrets.token_hex(16)}


def _slow(service, user: str, length: int) -> socket.socket:
    return hubs.slow_handin(service.port, COURSE, "a1", f"tok-{user}", length)


def test_two_uploads_at_once_a_third_refused_and_the_class_unharmed(service):
    held = [_slow(service, "eve", 1 << 20) for _ in range(2)]
    assert [hubs.answer(s, 0.5) for s in held] == [b"", b""]                # arriving, kept on disk as they come
    third = _slow(service, "eve", 1 << 20)
    assert hubs.answer(third, 0.5) == b""                                # refused: answered once its body is in
    third.sendall(b"\0" * ((1 << 20) - 2))
    answer = hubs.answer(third, 5)
    assert answer.startswith(b"HTTP/1.1 429 ") and b"Connection: close" not in answer   # the connection kept
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == (
        "2 hand-ins of yours are arriving already, the limit is 2 at once: wait for them, then hand in again")
    ok = requests.post(service.base + "handins/a1", data=pack_zip({"n.ipynb": b"{}"}), headers=_as("bob", **_key()))
    assert ok.status_code == 201                                         # bob hands in meanwhile
    held[0].close()
    for _ in range(50):                                                  # its slot is given back when it closes
        fourth = _slow(service, "eve", 10)
        fourth.sendall(b"\0" * 8)                                        # its 10 bytes: not a zip
        said = hubs.answer(fourth, 5)
        fourth.close()
        if b"the hand-in is not a zip archive" in said:
            break
        assert b"are arriving already" in said, said
        time.sleep(0.1)
    else:
        raise AssertionError("eve's closed upload kept its slot")
    for sock in (held[1], third):
        sock.close()


def test_a_body_far_over_the_limit_gets_the_one_line_and_past_the_rate_the_hub_is_not_asked(service):
    over = requests.post(service.base + "handins/a1", data=secrets.token_bytes(100 << 20),
                         headers=_as("eve", **_key()))
    assert over.status_code == 413 and over.json()["error"] == (
        "the hand-in is 100.0 MiB, over the limit of 2 MiB: leave out large data files and hand in again")
    codes = []
    for _ in range(LIMITS.per_minute + 5):
        r = requests.post(service.base + "handins/a1", params={"user": "bob"}, data=pack_zip({"n.ipynb": b"{}"}),
                          headers=_as("eve", **_key()))
        codes.append(r.status_code)
    assert codes == [403] * (LIMITS.per_minute - 1) + [429] * 6, codes
    asked = service.tokens.asked
    for _ in range(5):
        assert requests.post(service.base + "handins/a1", data=b"x", headers=_as("eve", **_key())).status_code == 429
    assert service.tokens.asked == asked                                 # her token is known: a refusal needs no hub
    claims = [h for h in service.store.handins(COURSE) if h.kind == "impersonation"]
    assert len(claims) == LIMITS.per_minute - 1                          # nothing recorded past the rate
    out = service.capsys.readouterr()
    assert out.out.count("refused eve") == LIMITS.per_minute + 1 and out.err.count("429") == 0, out


def test_a_request_with_a_body_refused_as_it_comes_in_still_gets_its_line(service):
    forged = requests.put(service.base + "feedback/1", data=b"x" * (3 << 20), headers={"Authorization": "token no"})
    assert forged.status_code == 401 and forged.json()["error"].startswith("no token the hub knows")
    eve = requests.put(service.base + "release/a1/bob", data=pack_zip({"n.ipynb": b"{}"}), headers=_as("eve"))
    assert eve.status_code == 403 and "only the instructors of c1" in eve.json()["error"]


def test_a_student_polling_is_refused_past_their_reads_and_nobody_else_is(service):
    codes, paths = [], ["assignments", "release/a1", "feedback/a1", "ping"]
    for i in range(LIMITS.reads_per_minute + 4):
        codes.append(requests.get(service.base + paths[i % 4], headers=_as("eve")).status_code)
    assert codes == [200] * LIMITS.reads_per_minute + [429] * 4, codes
    refused = requests.get(service.base + "assignments", headers=_as("eve"))
    assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 61
    assert refused.json()["error"].startswith(
        f"too many requests: the limit is {LIMITS.reads_per_minute} a minute to list, fetch and read feedback: "
        "try again in ")
    asked = service.tokens.asked
    for _ in range(5):
        assert requests.get(service.base + "feedback/a1", headers=_as("eve")).status_code == 429
    assert service.tokens.asked == asked                                 # her token is known: no question to the hub
    # her hand-in is a write, counted by its own rate: she still hands in, and so does the class
    handin = requests.post(service.base + "handins/a1", data=pack_zip({"n.ipynb": b"{}"}), headers=_as("eve", **_key()))
    assert handin.status_code == 201, handin.text
    assert requests.get(service.base + "assignments", headers=_as("bob")).status_code == 200
    for _ in range(LIMITS.reads_per_minute * 3):                          # the course's reads are never counted
        assert requests.get(service.base + "listing/eve", headers=_as("prof")).status_code == 200
    out = service.capsys.readouterr()
    assert out.out.count("refused eve: GET") == 1, out.out               # one line a minute in the log


def test_a_long_poll_waiting_when_the_service_stops_is_answered_not_cut_off(service):
    """`gradekit serve` waits for hand-ins in a long poll; at a clean stop of the hub (SIGTERM) the poll
    was cut off as the service's loop ended, and the log said ``500 GET .../handins``. Stopping now answers
    it at once with what it has (nothing), and nothing is a 5xx."""
    answers: list = []

    def poll() -> None:
        try:
            answers.append(requests.get(service.base + "handins", params={"after": 10**6, "wait": 30},
                                        headers=_as("prof"), timeout=30))
        except requests.RequestException as exc:
            answers.append(exc)

    waiting = threading.Thread(target=poll)
    waiting.start()
    time.sleep(0.5)                                                       # the poll is waiting for a hand-in
    assert not answers
    stopped = time.monotonic()
    service.stop["loop"].call_soon_threadsafe(service.stop["event"].set)
    waiting.join(10)
    service.thread.join(10)
    assert service.stop.get("ended") and time.monotonic() - stopped < 2, "the service did not stop at once"
    (answer,) = answers
    assert isinstance(answer, requests.Response) and answer.status_code == 200, answer
    assert answer.json() == {"handins": [], "stopping": True}                 # gradekit serve looks again later
    out = service.capsys.readouterr()
    assert " 500 " not in out.out and "500 GET" not in out.out, out.out


def test_the_log_says_the_exchange_s_record_not_another_hand_in_number(service):
    """"hand-in N" is a student's Nth (gradekit serve's line, the receipt, the page). The exchange logged its
    store-wide number the same way: bob's first hand-in after two of eve's read "as hand-in 3"."""
    for user in ("eve", "eve", "bob"):
        r = requests.post(service.base + "handins/a1", data=pack_zip({"n.ipynb": b"{}"}), headers=_as(user, **_key()))
        assert r.status_code == 201, r.text
    out = service.capsys.readouterr().out
    assert "received bob a1: record 3 of the exchange (1 file(s)" in out, out
    assert "hand-in 3" not in out, out


def test_a_student_s_list_refused_over_their_reads_is_refused_at_home_until_its_retry_after(service, tmp_path,
                                                                                           monkeypatch):
    """The Assignments tab's list (gradekit's HubList, in the student's server): refused over her reads, it
    remembers the refusal's Retry-After and says the same line, the seconds counted down, without asking the
    exchange again. Asked, a refusal past 30 a minute is held a second: a Refresh once a second showed
    "Loading, please wait..." and never the line. Here the exchange is stopped after the first refusal: the
    second list still says why, not that the exchange cannot be reached."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeError
    from traitlets.config import Config

    from gradekit.exchange.hub import student

    monkeypatch.setattr(student, "_LISTED", {})
    monkeypatch.setattr(student, "_REFUSED", {})
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "tok-eve")
    c = Config()
    c.CourseDirectory.course_id = COURSE
    c.GradekitHubExchange.url = service.base.split("api/")[0]
    c.Exchange.assignment_dir = str(tmp_path)

    def listed() -> str:
        lister = student.HubList(coursedir=CourseDirectory(config=c), authenticator=Authenticator(config=c), config=c)
        try:
            return json.dumps(lister.start())
        except ExchangeError as exc:
            return str(exc)

    assert "a1" in listed()                                            # her list
    for _ in range(LIMITS.reads_per_minute):                           # a script of hers spends her reads
        requests.get(service.base + "assignments", headers=_as("eve"))
    student._LISTED.clear()
    first = listed()
    assert first.startswith(f"too many requests: the limit is {LIMITS.reads_per_minute} a minute"), first
    service.stop["loop"].call_soon_threadsafe(service.stop["event"].set)
    service.thread.join(10)
    assert service.stop.get("ended")
    again = listed()
    assert again.startswith(f"too many requests: the limit is {LIMITS.reads_per_minute} a minute"), again
    assert re.search(r"try again in \d+ s", again) and "cannot be reached" not in again, again


def _sent(use) -> tuple[str, dict]:
    """A use's path (docs/reference/hub-exchange.md's form) as a request's, and the body it sends."""
    path = use.path.replace("<a>", "a1").replace("<user>", "bob").replace("<number>", "1")
    path = path.replace("after=N&wait=S", "after=0&wait=0")
    if use.method == "GET":
        return path, {}
    if path.startswith("feedback/"):
        return path, {"json": {"pages": {"n": "<p>page</p>"}}}
    return path, {"data": pack_zip({"n.ipynb": b"{}"})}


def test_each_route_of_the_reference_answers_whom_it_says_and_refuses_the_rest(service):
    """docs/reference/hub-exchange.md is generated from wire.ROUTES: each use, called as a student and as
    an instructor, is served to whom its ``who`` says (never 405: the server has that method) and
    refused to the others with 403 and one line -- so the page cannot say what the service does not do."""
    from gradekit.exchange.hub.wire import ROUTES

    first = requests.post(service.base + "handins/a1", data=pack_zip({"n.ipynb": b"{}"}), headers=_as("bob", **_key()))
    assert first.status_code == 201 and first.json()["id"] == 1, first.text
    uses = [use for route in ROUTES for use in route.uses]
    assert {use.who for use in uses} == {"caller", "instructors", "nobody"}
    for i, use in enumerate(uses):
        path, body = _sent(use)
        for who in (f"s{i}", "prof"):                                    # a student of their own each: no rate met
            headers = _as(who, **(_key() if use.method == "POST" else {}))
            r = requests.request(use.method, service.base + path, headers=headers, **body)
            allowed = use.who == "caller" or (use.who == "instructors" and who == "prof")
            assert r.status_code != 405, (use, who, r.status_code)
            if allowed:
                assert r.status_code != 403, (use, who, r.text)
            else:
                assert r.status_code == 403 and len(r.json()["error"].splitlines()) == 1, (use, who, r.text)
