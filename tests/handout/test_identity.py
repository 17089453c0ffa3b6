"""Who handed a submission in, and when: real Unix students against the exchange (issue 21).

Three accounts of their own -- gkalice, gkbob and gkeve, who attacks -- run
nbgrader's stock commands from the student deployment (``make deploy``), as
students on a shared server do; the instructor is root. Every attempt on
another student's release, submission or feedback, and on the exchange's own
folders, must fail; a submission counts for the account that handed it in, at
the time it really arrived; a file changed after handing in is caught; and the
second and third feedback can be fetched, as the student's own account.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import pwd
import shutil
import stat
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import unix_users
from conftest import ASSIGNMENT, NOTEBOOK, VENV_BIN, CourseDir, with_solutions

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A = ASSIGNMENT
STUDENTS = ("gkalice", "gkbob", "gkeve")
GRADEKIT, NBGRADER = str(VENV_BIN / "gradekit"), str(VENV_BIN / "nbgrader")
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"


def _utc() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def _manifest(root: Path) -> dict:
    """Every inode of the exchange: what an attack that worked would have changed."""
    out = {}
    for path in [root, *sorted(root.rglob("*"))]:
        st = os.lstat(path)
        out[str(path.relative_to(root))] = (st.st_ino, stat.S_IMODE(st.st_mode), st.st_uid, st.st_size, st.st_ctime_ns)
    return out


def _put(account, notebook: nbformat.NotebookNode) -> None:
    """Write ``notebook`` into the account's fetched folder, as that account (their file, their edit)."""
    path = account.home / A / f"{NOTEBOOK}.ipynb"
    path.write_text(nbformat.writes(notebook))
    shutil.chown(path, account.name, account.name)


@pytest.fixture(scope="module")
def exchange(tmp_path_factory):
    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    accounts = {a.name: a for a in unix_users.create(list(STUDENTS))}
    root = Path("/tmp") / f"gk-exchange-{os.getpid()}"
    shutil.rmtree(root, ignore_errors=True)
    course = CourseDir.create(tmp_path_factory.mktemp("identity") / "course", STUDENTS)
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Exchange.root = "{root}"\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    try:
        course.generate()
        course.run(GRADEKIT, "release", A)
        config = course.run(GRADEKIT, "student-config").stdout
        for account in accounts.values():
            account.write_config(config)
            account.nbgrader("fetch_assignment", A)
        yield SimpleNamespace(course=course, root=root, inbound=root / "transformers101" / "inbound", **accounts)
    finally:
        unix_users.remove(list(STUDENTS))
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def handed_in(exchange):
    """Round one: bob hands in a right answer, alice and eve blank ones; then eve hands in as bob,
    tries `submit --student gkbob`; the instructor collects and grades."""
    x = exchange
    _put(x.gkbob, x.course.answer_key("gkbob"))
    for who in (x.gkbob, x.gkalice, x.gkeve):
        who.nbgrader("submit", A)
    later = (_utc() + dt.timedelta(minutes=5)).strftime(STAMP)
    spoof = x.inbound / f"gkbob+{A}+{later}+evilname"
    x.gkeve.run("sh", "-c", f"mkdir '{spoof}' && cp ~/{A}/{NOTEBOOK}.ipynb '{spoof}/' && "
                            f"printf '{later}' > '{spoof}/timestamp.txt'")
    as_bob = x.gkeve.nbgrader("submit", A, "--student=gkbob", check=False)
    collect = x.course.run(NBGRADER, "collect", A, check=False)
    autograde = x.course.run(GRADEKIT, "autograde", A)
    return SimpleNamespace(spoof=spoof, as_bob=as_bob, collect=collect, autograde=autograde)


def test_a_spoofed_submission_is_refused_and_the_victim_keeps_their_grade(exchange, handed_in):
    x, h = exchange, handed_in
    assert h.as_bob.returncode != 0 and "gkbob" in h.as_bob.stderr   # eve's client cannot submit as bob
    log = h.collect.stdout + h.collect.stderr
    assert "handed in under another student's name" in log and "gkeve" in log, log[-2000:]
    collected = (x.course.root / "submitted" / "gkbob" / A / f"{NOTEBOOK}.ipynb").read_text()
    assert collected == nbformat.writes(x.course.answer_key("gkbob"))   # bob's own, not eve's
    results = x.course.results(STUDENTS)
    assert results["gkbob"].score == 20 and results["gkeve"].score == 0
    line = next(line for line in h.autograde.stdout.splitlines() if "another student's name" in line)
    assert "gkbob" in line and "gkeve" in line and h.spoof.name in line    # both accounts named
    kept = list((x.course.root / ".gradekit" / "handins" / A).glob("gkbob+*evilname@*"))
    assert kept and (kept[0] / f"{NOTEBOOK}.ipynb").is_file()             # kept aside, not deleted
    integrity = x.course.run(GRADEKIT, "integrity", A)
    assert "another student's name" in integrity.stdout and "gkeve" in integrity.stdout


def test_every_submission_has_a_receipt_that_checks(exchange, handed_in):
    x = exchange
    meta = json.loads((x.course.root / "submitted" / "gkbob" / A / "receipt.json").read_text())
    assert meta["number"] == 1 and meta["handed_in_by"] == "gkbob"
    assert x.course.results(["gkbob"])["gkbob"].receipt == meta["receipt"]
    good = x.course.run(GRADEKIT, "receipt", meta["receipt"])
    assert "is the hand-in" in good.stdout and "gkbob" in good.stdout
    forged = meta["receipt"].replace("~1~", "~2~")
    bad = x.course.run(GRADEKIT, "receipt", forged, check=False)
    assert bad.returncode == 1 and "not a receipt of this course" in bad.stdout
    x.course.cli("feedback", A, "--student", "gkbob")
    page = (x.course.root / "feedback" / "gkbob" / A / f"{NOTEBOOK}.html").read_text()
    assert meta["receipt"] in page and "hand-in 1" in page      # its number, not a graded attempt's


def test_no_student_can_touch_anothers_files_or_the_exchange(exchange, handed_in):
    x = exchange
    x.course.cli("feedback", A)
    x.course.run(NBGRADER, "release_feedback", A)
    x.gkbob.nbgrader("fetch_feedback", A)
    bob_in = next(p for p in x.inbound.iterdir() if p.name.startswith("gkbob+") and "evilname" not in p.name)
    from nbgrader.utils import notebook_hash

    secret = (x.course.root / "submitted" / "gkbob" / A / "submission_secret.txt").read_text()
    bob_page = x.root / "transformers101" / "feedback" / f"{notebook_hash(secret=secret, notebook_id=NOTEBOOK)}.html"
    bob_out = x.root / "transformers101" / "outbound" / A / "gkbob"
    course = x.root / "transformers101"
    before = _manifest(x.root)
    eve = x.gkeve
    attempts = {
        "list inbound/": f"ls '{x.inbound}'",
        "read bob's submission": f"cat '{bob_in}/{NOTEBOOK}.ipynb'",
        "list bob's submission": f"ls '{bob_in}'",
        "add a file to it": f"touch '{bob_in}/x'",
        "replace its timestamp": f"printf 2000 > '{bob_in}/timestamp.txt'",
        "delete its notebook": f"rm -f '{bob_in}/{NOTEBOOK}.ipynb'",
        "rename it": f"mv '{bob_in}' '{x.inbound}/gkeve+{A}+x+y'",
        "delete it": f"rm -rf '{bob_in}'",
        "read bob's release": f"cat '{bob_out}/{NOTEBOOK}.ipynb'",
        "rename bob's release": f"mv '{bob_out}' '{bob_out}.x'",
        "add to outbound/": f"touch '{course}/outbound/{A}/x'",
        "list the feedback": f"ls '{course}/feedback'",
        "read bob's feedback": f"cat '{bob_page}'",
        "replace bob's feedback": f"printf x > '{bob_page}'",
        "rename bob's feedback": f"mv '{bob_page}' '{bob_page}.x'",
        "add to feedback/": f"touch '{course}/feedback/x.html'",
        "rename inbound/": f"mv '{x.inbound}' '{course}/in2'",
        "rename the course": f"mv '{course}' '{x.root}/gone'",
        "delete outbound/": f"rm -rf '{course}/outbound'",
        "read bob's fetched copy": f"cat '{x.gkbob.home}/{A}/{NOTEBOOK}.ipynb'",
        "read the course directory": f"ls '{x.course.root}'",
    }
    done = [what for what, command in attempts.items() if eve.may(command)]
    assert done == [], f"gkeve could: {done}"
    assert _manifest(x.root) == before
    assert x.gkbob.may(f"cat '{bob_page}'") and x.gkbob.may(f"cat '{bob_out}/{NOTEBOOK}.ipynb'")


def test_a_backdated_timestamp_counts_when_it_arrived_late_with_its_penalty(exchange, handed_in):
    x = exchange
    due = _utc() + dt.timedelta(seconds=2)
    x.course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={due.strftime('%Y-%m-%d %H:%M:%S')} UTC")
    time.sleep(3)
    _put(x.gkalice, x.course.answer_key("gkalice"))
    x.gkalice.nbgrader("submit", A)
    mine = max((p for p in x.inbound.iterdir() if p.name.startswith("gkalice+")), key=lambda p: p.name)
    claim = (due - dt.timedelta(hours=1)).strftime(STAMP)
    x.gkalice.run("sh", "-c", f"printf '{claim}' > '{mine}/timestamp.txt'")   # her own file: she may
    collect = x.course.run(NBGRADER, "collect", "--update", A)
    assert "timestamp.txt does not say when it was handed in" in collect.stdout + collect.stderr
    stamp = (x.course.root / "submitted" / "gkalice" / A / "timestamp.txt").read_text()
    assert dt.datetime.strptime(stamp, STAMP) > due                    # the true time, not her claim
    x.course.run(GRADEKIT, "autograde", A)
    with x.course.gradebook() as gb:
        submission = gb.find_submission(A, "gkalice")
        assert submission.total_seconds_late > 0 and submission.score == 20 and submission.late_submission_penalty == 20


def test_a_file_changed_after_handing_in_is_caught_and_the_first_counts(exchange, handed_in):
    x = exchange
    mine = next(p for p in x.inbound.iterdir() if p.name.startswith("gkeve+") and p.name.count("+") == 3)
    x.gkeve.run("sh", "-c", f"printf ' ' >> '{mine}/{NOTEBOOK}.ipynb'")   # after the first collect saw it
    collect = x.course.run(NBGRADER, "collect", "--update", A)
    assert "changed after it was handed in" in collect.stdout + collect.stderr and "gkeve" in collect.stderr
    kept = (x.course.root / "submitted" / "gkeve" / A / f"{NOTEBOOK}.ipynb").read_text()
    assert not kept.endswith(" ")                                          # what was handed in


def test_feedback_can_be_fetched_again_and_again(exchange, handed_in):
    """nbgrader's fetch re-copies every earlier page and died on the first one released 0400."""
    x = exchange
    bob = x.gkbob
    for attempt in (2, 3):
        key = x.course.answer_key("gkbob")
        softmax = next(c.source for c in key.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax")
        _put(bob, with_solutions(key, {"softmax": softmax + f"\n# attempt {attempt}\n"}))
        time.sleep(1.1)   # nbgrader names a submission by the second
        bob.nbgrader("submit", A)
        x.course.run(NBGRADER, "collect", "--update", A)
        x.course.run(GRADEKIT, "autograde", A, "--student", "gkbob")
        x.course.cli("feedback", A, "--student", "gkbob")
        x.course.run(NBGRADER, "release_feedback", A, "--student", "gkbob")
        fetched = bob.nbgrader("fetch_feedback", A)
        pages = sorted((bob.home / A / "feedback").glob("*/*.html"))
        assert len(pages) >= attempt, (fetched.stdout, fetched.stderr)
        assert f"attempt {attempt}" in pages[-1].read_text()
        assert all(p.stat().st_uid == pwd.getpwnam("gkbob").pw_uid for p in pages)   # the student's own copies
