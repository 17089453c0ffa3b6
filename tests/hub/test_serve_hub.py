"""``gradekit serve`` through the hub exchange: each hand-in graded the moment the service accepts it.

The hub of tests/hub/test_hub_service.py (its fixture, a hub of this module's own); ``gradekit
serve`` runs on the course with ``c.Gradekit.exchange = "hub"``, the students hand in with
nbgrader's own submit through the hub exchange and read their feedback with fetch_feedback. The
same policies as on the filesystem exchange (an attempts limit, the time between graded attempts,
the best attempt counting, hidden until the due date), ``kill -9`` and a restart grade each hand-in
once, a regrade gives the new pages back, a receipt names its hand-in, and a flood of refused
hand-ins leaves the class unharmed.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
import signal
import socket
import time

import hubs
import processes
import pytest
from conftest import NOTEBOOK, known_sources, with_solutions
from test_hub_service import (  # noqa: F401 - hub: the fixture
    A,
    GRADEKIT,
    NBGRADER,
    PER_MINUTE,
    Serve,
    Student,
    _call,
    _exchange,
    _feedback,
    _handin,
    _lying_bomb,
    _put,
    hub,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

MIN_INTERVAL = 4  # seconds between graded attempts, in the policies' test: short, and the test waits it out


def test_serve_grades_through_the_hub_exchange(hub, tmp_path):
    course = hub.course
    due = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=7)
    course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    ada, bob = Student(hub, "ada", tmp_path / "ada"), Student(hub, "bob", tmp_path / "bob")
    for s in (ada, bob):
        s.nbgrader("fetch_assignment", A)
    serve = Serve(course, tmp_path / "serve.log")
    try:
        assert "taking hand-ins from the hub exchange" in serve.lines()[0]
        key = course.answer_key("ada")
        _put(ada, with_solutions(key, known_sources("mistakes/softmax_wrong_axis")))
        ada.nbgrader("submit", A)
        took, (page,) = _feedback(ada)
        text = page.read_text()
        assert "normalised along axis 0 whatever" in text and "attempt 1" in text, text[:2000]
        serve.wait_for(r"graded ada self_attention attempt 1: 17/20 .* s after it arrived")   # bench/hub.py times it
        assert re.search(r"received ada self_attention \(hand-in 1, gk1~ada~", "\n".join(serve.lines()))
        _put(ada, key)
        time.sleep(1.1)
        ada.nbgrader("submit", A)
        _took, (page,) = _feedback(ada)
        assert "attempt 2" in page.read_text() and "your last attempt counts" in page.read_text()
        serve.wait_for(r"graded ada self_attention attempt 2: 20/20 \(it counts\)")
        assert course.results(["ada"])["ada"].score == 20
        # her receipt names her hand-in in the hub exchange
        receipt = course.results(["ada"])["ada"].receipt
        number = _ids(hub, "ada")[-1]
        said = course.run(GRADEKIT, "receipt", receipt).stdout
        assert f"it is record {number} of the hub exchange, handed in by the hub user ada" in said
        assert "inbound/" not in said and "ada's hand-in 2 of self_attention" in said, said
        # a regrade through the service gives her page again, for the hand-in that counts
        before = _released(hub, number)
        out = course.run(GRADEKIT, "autograde", A, "--force", "--student", "ada").stdout
        assert "graded by the running service" in out, out
        serve.wait_for(r"gave ada self_attention's feedback again")
        assert _released(hub, number) > before
        # bob hands in; eve hands in under ada's name: refused, reported, and ada keeps her grade
        _put(bob, course.answer_key("bob"))
        bob.nbgrader("submit", A)
        serve.wait_for(r"graded bob self_attention attempt 1: 20/20")
        refused = _handin(hub, "eve", {f"{NOTEBOOK}.ipynb": b"{}"}, params={"user": "ada"})
        assert refused.status_code == 403
        report = serve.wait_for(r"another student's name")[0]
        assert "ada" in report and "eve" in report
    finally:
        assert serve.stop(signal.SIGKILL) != 0      # kill -9, as it stands
    # while no service runs: bob hands in again; the restart grades it, and nothing twice
    time.sleep(1.1)
    bob.nbgrader("submit", A)
    again = Serve(course, tmp_path / "again.log")
    try:
        again.wait_for(r"graded bob self_attention attempt 2")
        time.sleep(2)
    finally:
        assert again.stop() == 0
    graded = re.findall(r"graded (\w+) \S+ attempt (\d+)", (tmp_path / "serve.log").read_text()
                        + (tmp_path / "again.log").read_text())
    assert sorted(graded) == sorted(set(graded)), graded
    assert course.results(["ada"])["ada"].score == 20 and course.results(["ada"])["ada"].handin == 2
    assert course.results(["bob"])["bob"].handin == 2


def _ids(hub, student: str) -> list[int]:
    """The numbers of ``student``'s hand-ins, as the student lists them."""
    return [h["id"] for a in _call(hub, student, "GET", "assignments").json()["assignments"] for h in a["handins"]]


def _released(hub, number: int) -> list[str]:
    """When the pages of hand-in ``number`` were given back, from the exchange's records."""
    import sqlite3

    with sqlite3.connect(hub.store / "exchange.sqlite") as db:
        return sorted(r[0] for r in db.execute("SELECT released FROM gk_feedback WHERE handin = ?", (number,)))


def _pages(hub, student: str) -> dict[int, str]:
    """hand-in number -> its page, as ``student`` fetches it."""
    return {p["id"]: p["html"] for p in _call(hub, student, "GET", f"feedback/{A}").json()["feedback"]}


def test_a_course_without_serve_collects_grades_and_gives_feedback_back_through_the_hub(hub, tmp_path):
    """The batch way on a hub course: collect through the exchange, autograde, release-feedback; a regrade
    gives the pages that were out again, and a submission collected since its grading gets none."""
    course = hub.course
    _exchange(hub).publish(A, force=True)
    cy = Student(hub, "cy", tmp_path / "cy")
    cy.nbgrader("fetch_assignment", A)
    _put(cy, course.answer_key("cy"))
    cy.nbgrader("submit", A)
    collected = course.run(GRADEKIT, "collect", A).stdout
    assert re.search(r"collected 1 submission\(s\) into submitted/, \d+ there already", collected), collected
    receipt = json.loads((course.root / "submitted" / "cy" / A / "receipt.json").read_text())
    assert receipt["handed_in_by"] == "cy" and receipt["handin"] == f"hub:{_ids(hub, 'cy')[-1]}"
    graded = course.run(GRADEKIT, "autograde", A, "--student", "cy").stdout
    assert "given again" not in graded                                  # nothing of cy's was out
    assert course.results(["cy"])["cy"].score == 20
    gave = course.run(GRADEKIT, "release-feedback", A, "--student", "cy").stdout
    assert "gave 1 feedback page(s) of 1 student(s) back through the hub exchange" in gave, gave
    _took, (page,) = _feedback(cy)
    assert "cy" in page.read_text()
    # a regrade (a grader fixed, say) gives the page that was out again
    number = _ids(hub, "cy")[-1]
    before = _released(hub, number)
    regraded = course.run(GRADEKIT, "autograde", A, "--student", "cy", "--force").stdout
    assert "feedback given again to 1 student(s) whose feedback was out" in regraded, regraded
    assert _released(hub, number) > before
    # a hand-in collected since its grading: its pages wait for the grading
    cy.nbgrader("submit", A)
    course.run(GRADEKIT, "collect", A)
    stale = course.run(GRADEKIT, "release-feedback", A, "--student", "cy", check=False)
    assert stale.returncode == 1 and "was collected since: run `gradekit autograde" in stale.stderr, stale
    assert _released(hub, _ids(hub, "cy")[-1]) == []
    # and collect refuses while gradekit serve takes the hand-ins in itself
    serve = Serve(course, tmp_path / "serve.log")
    try:
        busy = course.run(GRADEKIT, "collect", A, check=False)
        assert busy.returncode == 2 and "another `gradekit serve` is running" in busy.stderr, busy.stderr
    finally:
        assert serve.stop() == 0


def test_the_policies_hold_through_the_hub_exchange(hub, tmp_path):
    """An attempts limit, the time between graded attempts (the newest waiting one graded), the best attempt
    counting, and cells hidden until the due date -- shown once it has passed."""
    course = hub.course
    _exchange(hub).publish(A, force=True)
    course.write_settings(A, f'[serve]\nattempts = 3\nmin_interval = {MIN_INTERVAL}\ncounts = "best"\n'
                             'hidden_until_due = ["test_kv_cache", "test_kv_cache_decode"]\n')
    due = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=7)
    course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
    key = course.answer_key("dee")
    right = nbformat_bytes(key)
    wrong = nbformat_bytes(with_solutions(key, known_sources("mistakes/softmax_wrong_axis")))
    serve = Serve(course, tmp_path / "serve.log")
    try:
        assert _handin(hub, "dee", {f"{NOTEBOOK}.ipynb": right}).status_code == 201
        (first,) = serve.wait_for(r"graded dee self_attention attempt 1: 20/20")
        shown = re.search(r"; the page shows (\S+)/20 until the due date, (.+) hidden$", first)
        assert shown and "test_kv_cache (" in shown.group(2), first
        (one,) = _ids(hub, "dee")
        page = _pages(hub, "dee")[one]
        assert "attempt 1 of 3" in page and "Checked after the due date" in page
        # two more at once: the first waits its MIN_INTERVAL s, and the newer one replaces it
        assert _handin(hub, "dee", {f"{NOTEBOOK}.ipynb": wrong}).status_code == 201
        assert _handin(hub, "dee", {f"{NOTEBOOK}.ipynb": wrong}).status_code == 201
        serve.wait_for(rf"superseded: dee self_attention hand-in 2, by hand-in 3 \(one graded at most every "
                       rf"{MIN_INTERVAL} s\)")
        (second,) = serve.wait_for(r"graded dee self_attention attempt 2: 17/20 \(attempt 1 counts: 20/20\)")
        waited = _clock(second) - _clock(first)
        assert MIN_INTERVAL - 1 <= waited <= MIN_INTERVAL + 12, (first, second)
        three = _ids(hub, "dee")[2]
        page = _pages(hub, "dee")[three]
        assert "attempt 2 of 3" in page, page[:3000]
        assert "your best attempt counts: which one is said after the due date" in page, page[:3000]
        assert course.results(["dee"])["dee"].score == 20 and course.results(["dee"])["dee"].handin == 1
        # the third graded attempt, and then no more
        time.sleep(MIN_INTERVAL)
        assert _handin(hub, "dee", {f"{NOTEBOOK}.ipynb": wrong}).status_code == 201
        serve.wait_for(r"graded dee self_attention attempt 3: 17/20 \(attempt 1 counts: 20/20\)")
        assert _handin(hub, "dee", {f"{NOTEBOOK}.ipynb": right}).status_code == 201
        serve.wait_for(r"not graded: dee self_attention hand-in 5: all 3 attempts used")
        assert len(_pages(hub, "dee")) == 3                         # the fifth has no page
        # the due date passes: a regrade shows the hidden cells on the page of the attempt that counts
        past = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=1)
        course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={past:%Y-%m-%d %H:%M:%S} UTC")
        time.sleep(2 * processes.LOOKS)                             # the service reads the due date again
        course.run(GRADEKIT, "autograde", A, "--force", "--student", "dee")
        serve.wait_for(r"gave dee self_attention's feedback again")
        page = _pages(hub, "dee")[one]
        assert "Checked after the due date" not in page and "attempt 1 of 3" in page, page[:3000]
        assert "your best attempt counts: attempt 1 (20 points)" in page, page[:3000]   # said once nothing waits
    finally:
        assert serve.stop() == 0
        course.write_settings(A, "")
        course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")


def nbformat_bytes(notebook) -> bytes:
    import nbformat

    return nbformat.writes(notebook).encode()


def _clock(line: str) -> int:
    h, m, s = (int(x) for x in line[:8].split(":"))
    return h * 3600 + m * 60 + s


def _slow(hub, who: str, length: int) -> socket.socket:
    """A hand-in whose body arrives slowly: its headers and two bytes, straight to the service."""
    return hubs.slow_handin(hub.service_port, "transformers101", A, hub.tokens[who], length)


def test_a_flood_of_refused_hand_ins_leaves_the_class_unharmed(hub, tmp_path):
    """eve floods the exchange -- hand-ins under bob's name, bodies over twice the limit, zip bombs whose
    headers lie, slow uploads held open -- while bob hands in: his hand-in is accepted and graded (as fast
    as ever: bench/hub.py), eve's tries past her rate leave no record and one line of log, and nothing
    legit is lost."""
    from concurrent.futures import ThreadPoolExecutor

    course = hub.course
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    bob = Student(hub, "bob", tmp_path / "bob")
    bob.nbgrader("fetch_assignment", A)
    _put(bob, course.answer_key("bob"))
    mark = len(hub.text())
    serve = Serve(course, tmp_path / "serve.log")
    try:
        began = time.monotonic()                                   # eve's first request of this test
        eve_key = nbformat_bytes(course.answer_key("eve"))
        assert _handin(hub, "eve", {f"{NOTEBOOK}.ipynb": eve_key}).status_code == 201     # her own, before
        serve.wait_for(r"graded eve self_attention attempt \d+: 20/20")
        eve_before = _ids(hub, "eve")
        # two slow uploads held open; the next ones are refused, each answered when its body has arrived
        # (so that its one line reaches its sender through the hub's proxy); past a few, cut off at once
        from gradekit.exchange.hub.gate import REFUSED_AT_ONCE

        line = "2 hand-ins of yours are arriving already, the limit is 2 at once: wait for them, then hand in again"
        held = [_slow(hub, "eve", 1 << 20) for _ in range(2)]
        assert all(hubs.answer(s, 1.0) == b"" for s in held)
        refused = [_slow(hub, "eve", 1 << 20) for _ in range(REFUSED_AT_ONCE)]
        assert all(hubs.answer(s, 0.3) == b"" for s in refused)
        cut = _slow(hub, "eve", 1 << 20)
        answer = hubs.answer(cut, 10)
        assert answer.startswith(b"HTTP/1.1 429") and b"Connection: close" in answer, answer[:300]
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == line
        refused[0].sendall(b"\0" * ((1 << 20) - 2))                  # its body, to its end: then its line
        answer = hubs.answer(refused[0], 10)
        assert answer.startswith(b"HTTP/1.1 429") and json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == line
        for held_open in [*held, *refused, cut]:
            held_open.close()
        time.sleep(0.5)
        over = secrets.token_bytes(5 << 20)

        def flood(i: int):
            kind = i % 3
            if kind == 0:
                return _handin(hub, "eve", {f"{NOTEBOOK}.ipynb": b"{}"}, params={"user": "bob"})
            key = {"X-Gradekit-Key": secrets.token_hex(16)}
            body = over if kind == 1 else _lying_bomb()
            return _call(hub, "eve", "POST", f"handins/{A}", data=body, headers=key)

        with ThreadPoolExecutor(2) as pool:                        # as many at once as she may send
            flooding = [pool.submit(flood, i) for i in range(60)]
            time.sleep(0.5)
            started = time.monotonic()
            bob.nbgrader("submit", A)                               # bob hands in, in the middle of it
            submitted = time.monotonic() - started
            responses = [f.result() for f in flooding]
        # her rate is per minute: the minutes her requests spanned (one, unless a loaded machine drew them out)
        minutes = int((time.monotonic() - began) // 60) + 1
        line = serve.wait_for(r"graded bob self_attention attempt \d+: 20/20 .* s after it arrived")[-1]
        # how fast, beside a hand-in with no flood: bench/hub.py's flood run (a timed assertion here fails on a
        # loaded machine, not on a slow service)
        print(json.dumps({"bob_submit_s": round(submitted, 2),
                          "bob_graded_after_arrival_s": float(re.search(r"([\d.]+) s after it arrived", line)[1])}))
        assert _feedback(bob)[1]                                   # his pages, fetched
        # every refusal one line; past the rate, nothing but 429
        for r in responses:
            assert r.status_code in (400, 403, 413, 429) and "\n" not in r.json()["error"], r.text
        codes = [r.status_code for r in responses]
        assert codes.count(429) >= len(codes) - PER_MINUTE * minutes, (minutes, codes)
        time.sleep(2)
        claims = [h for h in exchange.look(None, [A])
                  if h.kind == "impersonation" and h.account == "eve" and h.named == "bob"]   # this flood's
        assert 0 < len(claims) <= PER_MINUTE * minutes, (minutes, len(claims))
        reported = [x for x in serve.lines() if "another student's name" in x and "named for bob" in x]
        assert len(reported) == len(claims)
        log = hub.text()[mark:]
        # one line a refusal up to her rate, then one for going over it (a minute), and one for too many at once
        assert log.count("refused eve") <= PER_MINUTE * minutes + 2, (minutes, log[-3000:])
        assert 2 <= log.count("are not logged") <= 1 + minutes, (minutes, log[-3000:])
        # nothing legit lost: eve's own hand-in is there as it was, bob's is graded, nothing else of eve's is
        assert _ids(hub, "eve") == eve_before
        assert course.results(["bob"])["bob"].score == 20
        assert not (hub.store / "incoming").exists() or not list((hub.store / "incoming").iterdir())
    finally:
        assert serve.stop() == 0


FLOOD_SECONDS = 12.0


def _flooding(hub, stop, counts: dict, lock, anonymous: bool = False) -> None:
    """One thread of eve's flood through the hub's proxy, on one kept-alive connection as a script's would be:
    hand-ins (refused past her rate, and held a second each past a few), reads (past her reads a minute), no
    token, an encoded '..', and now and then a body of 65 MiB; ``anonymous``: requests with no token alone,
    which no rate holds back. Each answer's status counted, and whether it was one line of JSON."""
    import requests

    http = requests.Session()
    base = f"{hub.service}api/transformers101/"
    auth = {"Authorization": f"token {hub.tokens['eve']}"}
    junk, huge = b"PK" + secrets.token_bytes(4096), b"\0" * (65 << 20)
    i = 0
    while not stop.is_set():
        i += 1
        kind = ("handin", "read", "anonymous", "dotdot", "read", "handin")[i % 6] if i % 97 else "huge"
        kind = "anonymous" if anonymous else kind
        try:
            if kind in ("handin", "huge"):
                r = http.post(f"{base}handins/{A}", data=huge if kind == "huge" else junk, timeout=60,
                              headers={**auth, "X-Gradekit-Key": secrets.token_hex(16)})
            elif kind == "read":
                r = http.get(f"{base}feedback/{A}", headers=auth, timeout=60)
            elif kind == "anonymous":
                r = http.get(f"{base}assignments", timeout=60)
            else:
                r = http.get(f"{base}release/%2e%2e%2f%2e%2e", headers=auth, timeout=60)
            try:
                one_line = "\n" not in r.json()["error"]
            except (ValueError, KeyError, TypeError):
                one_line = False
            key = (kind, r.status_code, one_line)
        except requests.RequestException as exc:
            key = (kind, type(exc).__name__, False)
        with lock:
            counts[key] = counts.get(key, 0) + 1


def test_a_flood_through_the_proxy_gives_no_other_student_nor_the_grader_a_5xx(hub, tmp_path):
    """eve floods the exchange through the hub's proxy from 6 kept-alive connections while ada reads her list
    every 0.3 s and bob and ada hand in: every refusal of eve's is one line of JSON (429, 401, 413, 404), and
    nobody else gets a 5xx -- not ada, not bob, not gradekit serve, which grades both at once."""
    import threading

    import requests

    course = hub.course
    _exchange(hub).publish(A, force=True)
    ada, bob = Student(hub, "ada", tmp_path / "ada"), Student(hub, "bob", tmp_path / "bob")
    for s in (ada, bob):
        s.nbgrader("fetch_assignment", A)
        _put(s, course.answer_key(s.name))
    serve = Serve(course, tmp_path / "serve.log")
    stop, lock, counts = threading.Event(), threading.Lock(), {}
    theirs: dict = {}
    floods = [threading.Thread(target=_flooding, args=(hub, stop, counts, lock, i >= 4), daemon=True)
              for i in range(6)]
    try:
        for thread in floods:
            thread.start()
        reader = requests.Session()
        started = time.monotonic()
        handed: list = []
        submitting = threading.Thread(target=lambda: (time.sleep(FLOOD_SECONDS / 3), handed.extend(
            s.nbgrader("submit", A, check=False) for s in (bob, ada))), daemon=True)
        submitting.start()
        while time.monotonic() - started < FLOOD_SECONDS:
            r = reader.get(f"{hub.service}api/transformers101/assignments",
                           headers={"Authorization": f"token {hub.tokens['ada']}"}, timeout=60)
            theirs[r.status_code] = theirs.get(r.status_code, 0) + 1
            time.sleep(0.3)
        submitting.join(120)
        assert len(handed) == 2 and all(p.returncode == 0 for p in handed), [p.stderr[-800:] for p in handed]
        for s in (bob, ada):
            serve.wait_for(rf"graded {s.name} self_attention attempt \d+: 20/20")
    finally:
        stop.set()
        for thread in floods:
            thread.join(90)
        code = serve.stop()
    total = sum(counts.values())
    refused = sum(c for (kind, status, _), c in counts.items() if isinstance(status, int) and status >= 400)
    print(json.dumps({"flood_requests": total, "refused": refused, "others": theirs,
                      "by_kind": {f"{k} {s} {'json' if j else 'not json'}": c for (k, s, j), c in sorted(
                          counts.items(), key=str)}}))
    assert all(p.returncode == 0 for p in handed), [p.stderr[-500:] for p in handed]
    assert set(theirs) == {200}, theirs                                     # ada: never a 5xx, never refused
    assert code == 0 and not [line for line in serve.lines() if "waiting" in line and "503" in line]
    assert total > 1000, counts
    for (kind, status, one_line), count in counts.items():                 # eve: one line of JSON each refusal
        assert isinstance(status, int) and status < 500 and (one_line or status == 200), (kind, status, count)
