"""The outbox against the test LMS: an outage during a rush, a sender killed mid-send, two processes
making one line item, a deep link made twice. Intervals are injected (the 30 s outage is bench/lti.py's)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import ASSIGNMENT, CourseDir
from starlette.testclient import TestClient

from lti.conftest import grade, gradebook, id_token, launch, register
from lti.lms import Served

pytestmark = pytest.mark.slow


RUSH = tuple(f"s{i:03d}" for i in range(8))


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """One course generated for every student these tests use, copied for each test."""
    course = CourseDir.create(tmp_path_factory.mktemp("outbox") / "course", students=("ada", "wei", *RUSH))
    course.generate()
    return course.root


def _fresh(generated, tmp_path, students=("ada", "wei")):
    """A course of its own and its LMS: these tests count every score the LMS gets."""
    shutil.copytree(generated, tmp_path / "course")
    course = CourseDir(tmp_path / "course")
    served = Served(names=list(students))
    register(course, served.lms)
    for s in students:
        launch(course, served.lms, s)
    return course, served


def _wait(what, timeout=30.0, every=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = what()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s")


def _last_scores(lms) -> dict[str, float]:
    return {s["username"]: s["applied"][-1]["scoreGiven"] for s in gradebook(lms)["scores"]}


def _no_duplicates(lms) -> None:
    for s in gradebook(lms)["scores"]:
        stamps = [a["timestamp"] for a in s["applied"]]
        assert len(stamps) == len(set(stamps)), f"{s['username']} got a score twice: {stamps}"


def _serve(course, *extra, log):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gradekit",
            "--course",
            str(course.root),
            "lti",
            "serve",
            ASSIGNMENT,
            "--no-web",
            "--scan",
            "0.5",
            "--retry-first",
            "0.2",
            "--retry-cap",
            "1",
            *extra,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )


def test_lms_down_during_a_rush_every_score_arrives_once(generated, tmp_path):
    course, served = _fresh(generated, tmp_path, students=RUSH)
    lms = served.lms
    log = open(tmp_path / "serve.log", "w")
    proc = _serve(course, log=log)
    try:
        grade(course, "s000", 0.25)
        _wait(lambda: _last_scores(lms).get("s000"))
        TestClient(lms.app).post("/test/control", json={"down_for": 3})
        wanted = {}
        for fraction in (0.5, 0.75, 1.0):  # the rush: every student's grade changes, thrice
            for i in range(8):
                grade(course, f"s{i:03d}", fraction - 0.01 * i)
                wanted[f"s{i:03d}"] = fraction - 0.01 * i
            time.sleep(0.5)
        _wait(
            lambda: all(abs(_last_scores(lms).get(s, -1) / _max(lms) - f) < 1e-3 for s, f in wanted.items()), timeout=30
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        log.close()
        served.close()
    _no_duplicates(lms)
    text = (tmp_path / "serve.log").read_text()
    assert "503" in text and "try 2" in text, text  # it did meet the outage, and waited it out
    assert not gradebook(lms)["refused"]


def _max(lms) -> float:
    return gradebook(lms)["lineitems"][0]["scoreMaximum"]


def test_sender_killed_mid_send_nothing_lost_nothing_twice(generated, tmp_path):
    course, served = _fresh(generated, tmp_path)
    lms = served.lms
    TestClient(lms.app).post("/test/control", json={"score_delay": 5})  # applied, then the answer waits
    grade(course, "ada", 0.5)
    grade(course, "wei", 0.5)
    log = open(tmp_path / "serve.log", "w")
    first = _serve(course, log=log)
    try:
        _wait(lambda: gradebook(lms)["scores"])  # the LMS has applied one; its 200 has not come back
        first.kill()  # kill -9 mid-send
        first.wait(10)
        TestClient(lms.app).post("/test/control", json={"score_delay": 0})
        again = _serve(course, log=log)
        try:
            _wait(lambda: len(_last_scores(lms)) == 2 and all(v > 0 for v in _last_scores(lms).values()))
            _wait(lambda: _outbox(course) == {"sent": 2}, timeout=15)
        finally:
            again.send_signal(signal.SIGTERM)
            again.wait(10)
    finally:
        log.close()
        served.close()
    book = gradebook(lms)
    assert all(len(s["applied"]) == 1 for s in book["scores"]), book["scores"]  # once each
    assert max(s["posts"] for s in book["scores"]) == 2  # the one in flight went again, with its timestamp
    _no_duplicates(lms)


def _outbox(course) -> dict:
    from sqlalchemy import func, select

    from gradekit.lti import store

    with store.engine(course.course).connect() as conn:
        return dict(conn.execute(select(store.outbox.c.state, func.count()).group_by(store.outbox.c.state)).all())


def test_two_processes_make_one_line_item(generated, tmp_path):
    course, served = _fresh(generated, tmp_path)
    lms = served.lms
    code = (
        "import sys; from gradekit.course import Course; from gradekit.lti import platform, sender, store;"
        "from gradekit.lti.services import Connector; from gradekit.errors import LMSUnavailable; import time\n"
        "c = Course.load(sys.argv[1]); p = platform.load(c); conn = Connector(c, p)\n"
        "from sqlalchemy import select\n"
        "key = store.engine(c).connect().execute(select(store.contexts.c.key)).scalar_one()\n"
        "for _ in range(100):\n"
        "    try:\n"
        "        print(sender.lineitem(c, conn, key, sys.argv[2])); break\n"
        "    except LMSUnavailable:\n"
        "        time.sleep(0.05)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(course.root), ASSIGNMENT], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    urls = {p.communicate(timeout=60)[0].strip() for p in procs}
    served.close()
    assert len(gradebook(lms)["lineitems"]) == 1
    assert urls == {gradebook(lms)["lineitems"][0]["id"]}


def test_a_deep_link_made_twice_is_one_line_item(lti_course, lms):
    from gradekit.lti import deeplink, platform
    from gradekit.lti.services import Connector

    course = lti_course.course
    p = platform.load(course)
    client = TestClient(lms.app)
    before = len(gradebook(lms)["lineitems"])
    for _ in range(2):
        request = id_token(lms, "prof", kind="deep")
        url, token = deeplink.answer(course, p, Connector(course, p), request, ASSIGNMENT)
        assert url == lms.base + "/deep_link_return"
        page = client.post("/deep_link_return", data={"JWT": token})
        assert page.status_code == 200, page.text
    book = gradebook(lms)
    assert len(book["links"]) >= 2 and all(link["type"] == "ltiResourceLink" for link in book["links"])
    assert len([i for i in book["lineitems"] if i["resourceId"] == ASSIGNMENT]) == max(1, before)
    assert not book["refused"]


def test_a_deep_link_answer_another_tool_signed_is_refused(lti_course, lms):
    """The test LMS checks what a real one does: the answer's signature against the tool's JWKS."""
    import jwt as pyjwt

    from lti.lms import _pem_pair

    private, _ = _pem_pair()
    forged = pyjwt.encode(
        {"iss": lms.client_id, "aud": lms.issuer}, private, algorithm="RS256", headers={"kid": "someone-else"}
    )
    answer = TestClient(lms.app).post("/deep_link_return", data={"JWT": forged})
    assert answer.status_code == 401 and "JWKS" in answer.json()["error"]


def test_at_the_due_date_the_loop_sends_fully_graded_unasked(generated, tmp_path):
    """No writer pokes and no scan comes: the due date itself wakes the sender."""
    import datetime as dt

    from gradekit.lti import platform
    from gradekit.lti.loop import Loop
    from gradekit.lti.sender import Backoff

    course, served = _fresh(generated, tmp_path, students=("ada",))
    lms = served.lms
    with course.gradebook() as gb:
        gb.update_or_create_assignment(
            ASSIGNMENT, duedate=dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(seconds=4)
        )
    grade(course, "ada", 1.0)
    c = course.course
    loop = Loop(c, platform.load(c), [ASSIGNMENT], scan=600, backoff=Backoff(0.2, 1))
    thread = threading.Thread(target=loop.run, daemon=True)
    thread.start()
    try:
        _wait(lambda: gradebook(lms)["scores"], timeout=15)
        assert [s["gradingProgress"] for s in gradebook(lms)["scores"][0]["applied"]] == ["Pending"]
        _wait(lambda: gradebook(lms)["scores"][0]["applied"][-1]["gradingProgress"] == "FullyGraded", timeout=15)
    finally:
        loop.stop.set()
        thread.join(10)
        served.close()


def test_a_course_that_fails_for_a_while_is_said_in_one_line_and_nothing_is_lost(generated, tmp_path):
    import io

    from gradekit.lti import platform
    from gradekit.lti.loop import Loop
    from gradekit.lti.sender import Backoff

    course, served = _fresh(generated, tmp_path, students=("ada",))
    course.write_settings(ASSIGNMENT, '[serve]\nbefore_due = "everything"\n')  # not a value it takes
    grade(course, "ada", 0.5)
    out = io.StringIO()
    c = course.course
    loop = Loop(c, platform.load(c), [ASSIGNMENT], scan=0.3, backoff=Backoff(0.2, 1), out=out)
    thread = threading.Thread(target=loop.run, daemon=True)
    thread.start()
    try:
        _wait(lambda: "trying again" in out.getvalue(), timeout=15)
        line = next(x for x in out.getvalue().splitlines() if "trying again" in x)
        assert "CourseError" in line and "before_due" in line and "nothing is lost" in line, line
        assert thread.is_alive() and not gradebook(served.lms)["scores"]
        course.write_settings(ASSIGNMENT, "")  # fixed
        _wait(lambda: gradebook(served.lms)["scores"], timeout=15)
    finally:
        loop.stop.set()
        thread.join(10)
        served.close()


def test_an_assignment_added_before_generate_gets_its_whole_points(tmp_path):
    """The natural order -- the assignment added to the LMS, then generated -- makes the line item with
    the points of its source notebooks (the gradebook knows none yet), the same the scores carry."""
    from gradekit.lti import deeplink, platform, want
    from gradekit.lti.services import Connector

    course = CourseDir.create(tmp_path / "course", students=("ada",))
    assert want.read(course.course, ASSIGNMENT)[1] == 0.0  # not generated: the gradebook has no cells
    served = Served(names=["ada"])
    try:
        register(course, served.lms)
        p = platform.load(course.course)
        request = id_token(served.lms, "prof", kind="deep")
        deeplink.answer(course.course, p, Connector(course.course, p), request, ASSIGNMENT)
        (item,) = gradebook(served.lms)["lineitems"]
    finally:
        served.close()
    course.generate()
    assert item["scoreMaximum"] == want.read(course.course, ASSIGNMENT)[1] > 1
