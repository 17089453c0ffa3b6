"""An instructor who is not root: the whole exchange, and the live service, as their own account.

Root chowns what ACLs cannot give; an instructor on a shared server has no
root. Here the instructor (gkteach, in the staff group gkteachers) owns the course
and runs every command as themselves, from the student deployment's package:
generate, release, nbgrader collect, autograde (sandboxed: bubblewrap as a
user), feedback, release_feedback, doctor, and ``gradekit serve``. Two real
students fetch, hand in, hand in again and fetch every attempt's feedback;
neither reads the other's work, and nobody but the instructor reads the course.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import nbformat
import processes
import pytest
import unix_users
from conftest import ASSIGNMENT, NOTEBOOK, CourseDir

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A = ASSIGNMENT
TEACHER, STAFF = "gkteach", "gkteachers"   # not test_jupyterhub.py's gkstaff
STUDENTS = ("gkstu1", "gkstu2")
BIN = unix_users.STUDENT_BIN


def _put(account, notebook) -> None:
    path = account.home / A / f"{NOTEBOOK}.ipynb"
    path.write_text(nbformat.writes(notebook))
    shutil.chown(path, account.name, account.name)


def _pages(account) -> list[Path]:
    return sorted((account.home / A / "feedback").glob("*/*.html"))


@pytest.fixture(scope="module")
def course():
    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    names = [TEACHER, *STUDENTS]
    accounts = {a.name: a for a in unix_users.create(names)}
    unix_users.claim([STAFF])
    subprocess.run(["groupdel", STAFF], capture_output=True)
    subprocess.run(["groupadd", STAFF], check=True, capture_output=True)
    subprocess.run(["usermod", "-aG", STAFF, TEACHER], check=True, capture_output=True)
    teacher = accounts[TEACHER]
    base = Path("/tmp") / f"gk-nonroot-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    shutil.chown(base, TEACHER, TEACHER)          # the instructor's own folder: the exchange goes in it
    root = teacher.home / "course"
    try:
        course = CourseDir.create(root, STUDENTS)
        with open(root / "nbgrader_config.py", "a") as fh:
            fh.write(f'\nc.Exchange.root = "{base / "exchange"}"\nc.Gradekit.staff_group = "{STAFF}"\n')
        subprocess.run(["chown", "-R", f"{TEACHER}:{TEACHER}", str(root)], check=True)
        os.chmod(root, 0o700)
        yield course, teacher, {s: accounts[s] for s in STUDENTS}, base / "exchange" / "transformers101"
    finally:
        unix_users.remove(names)
        subprocess.run(["groupdel", STAFF], capture_output=True)
        unix_users.release([STAFF])
        shutil.rmtree(base, ignore_errors=True)


def _key(teacher, course, student: str):
    """The student's solved notebook, made by the instructor (the course secret is theirs alone)."""
    out = course.root / "keys" / student
    _as(teacher, course, str(BIN / "gradekit"), "answer-key", A, "--student", student, "--out", str(out))
    return nbformat.read(out / f"{NOTEBOOK}.ipynb", as_version=4)


def _as(teacher, course, *argv, check=True):
    """A command as the instructor, in the course directory, with no secret in the environment."""
    return teacher.run(*argv, cwd=course.root, check=check, timeout=600)


def test_an_instructor_without_root_runs_the_course_and_the_service(course):
    course, teacher, students, here = course
    s1, s2 = students.values()
    _as(teacher, course, str(BIN / "gradekit"), "generate", A)
    release = _as(teacher, course, str(BIN / "gradekit"), "release", A)
    assert "Could not give" not in release.stdout + release.stderr, release.stderr   # ACLs did what chown cannot
    config = _as(teacher, course, str(BIN / "gradekit"), "student-config").stdout
    for student in students.values():
        student.write_config(config)
        student.nbgrader("fetch_assignment", A)
    # each student has their own numbers, and nobody else's release
    assert not s2.may("cat", f"'{here / 'outbound' / A / s1.name / (NOTEBOOK + '.ipynb')}'")

    # round one, in batches: s1 right, s2 untouched
    _put(s1, _key(teacher, course, s1.name))
    s1.nbgrader("submit", A)
    s2.nbgrader("submit", A)
    inbound = sorted((here / "inbound").iterdir())
    assert all(p.group() == STAFF for p in inbound), [(p.name, p.group()) for p in inbound]
    _as(teacher, course, str(BIN / "nbgrader"), "collect", A)
    out = _as(teacher, course, str(BIN / "gradekit"), "autograde", A).stdout
    assert re.search(rf"{s1.name}\s.*20/20", out) and re.search(rf"{s2.name}\s.*0/20", out), out
    _as(teacher, course, str(BIN / "gradekit"), "feedback", A)
    _as(teacher, course, str(BIN / "nbgrader"), "release_feedback", A)
    for student in students.values():
        student.nbgrader("fetch_feedback", A)
    (p1,), (p2,) = _pages(s1), _pages(s2)
    assert "Score: 20 / 20" in p1.read_text() and f"Student: <b>{s1.name}</b>" in p1.read_text()
    assert "Score: 0 / 20" in p2.read_text()

    # round two, live: the instructor's own service grades s2's fixed hand-in and releases its page
    log = teacher.home / "serve.log"
    env = {"HOME": str(teacher.home), "USER": TEACHER, "LANG": "C.UTF-8", "PATH": f"{BIN}:/usr/bin:/bin"}
    service = subprocess.Popen(
        ["runuser", "-u", TEACHER, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()),
         str(BIN / "gradekit"), "serve", A],
        cwd=course.root, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while "serving" not in log.read_text() and time.monotonic() < deadline:
            assert service.poll() is None, log.read_text()
            time.sleep(0.2)
        assert "serving" in log.read_text(), log.read_text()
        time.sleep(1.1)                                  # nbgrader names a hand-in by the second
        _put(s2, _key(teacher, course, s2.name))
        s2.nbgrader("submit", A)
        deadline = time.monotonic() + 60
        while len(_pages(s2)) < 2:
            assert time.monotonic() < deadline, log.read_text()
            s2.nbgrader("fetch_feedback", A, check=False)
            time.sleep(0.3)
        assert re.search(rf"graded {s2.name} {A} attempt 2: 20/20", log.read_text()), log.read_text()
    finally:
        for pid in processes.children(service.pid):   # runuser's child, the service: runuser, signalled, would
            os.kill(pid, signal.SIGTERM)             # kill it in 2 s and end by the signal; ended, it ends as it did
        service.wait(30)
    assert service.returncode == 0, log.read_text()
    again = s2.nbgrader("fetch_feedback", A, check=False)            # both attempts, fetched again
    assert again.returncode == 0, again.stderr
    pages = _pages(s2)
    assert len(pages) == 2 and "Score: 20 / 20" in pages[-1].read_text()

    # nobody reads a classmate's work or the course; the instructor's doctor finds nothing to fix
    for target in [*pages, here / "inbound", course.root / "solutions" / A / "reference.py",
                   course.root / ".gradekit" / "secret", course.root / "gradebook.db"]:
        verb = "ls" if target.is_dir() else "cat"
        assert not s1.may(verb, f"'{target}'"), f"{s1.name} can {verb} {target}"
    doctor = _as(teacher, course, str(BIN / "gradekit"), "doctor", check=False)
    assert doctor.returncode == 0 and "nothing to fix" in doctor.stdout, doctor.stdout + doctor.stderr
