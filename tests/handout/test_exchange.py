"""Each student's own variant through nbgrader's exchange, with the stock nbgrader commands.

The course's nbgrader_config.py selects gradekit's exchange classes. Three
students are simulated in one Unix account: each has a home and a working
directory of their own and runs nbgrader with ``--student=<id>`` (and collect
trusts the names: tests/handout/test_identity.py has real accounts).
"""

from __future__ import annotations

import csv
import os
import re
import stat
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from conftest import ASSIGNMENT, NOTEBOOK, VENV_BIN

pytestmark = pytest.mark.e2e  # the whole pipeline: `pytest -m "not e2e"` leaves it out

STUDENTS3 = ("alice", "bob", "carol")
NBGRADER = str(VENV_BIN / "nbgrader")


class Student:
    def __init__(self, student_id: str, home: Path, config: str):
        self.id, self.home = student_id, home
        home.mkdir(parents=True)
        # what a student's nbgrader_config.py holds: course id, exchange root, gradekit's classes
        (home / "nbgrader_config.py").write_text(config)

    @property
    def folder(self) -> Path:
        return self.home / ASSIGNMENT

    def nbgrader(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        env = dict(os.environ, HOME=str(self.home), PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}")
        env.pop("GRADEKIT_SECRET", None)  # students never have the course secret
        env.pop("JUPYTER_DATA_DIR", None)
        proc = subprocess.run([NBGRADER, *args, f"--student={self.id}"], cwd=self.home, env=env,
                              capture_output=True, text=True, timeout=300)
        if check and proc.returncode != 0:
            raise AssertionError(f"{self.id}: nbgrader {args} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def feedback_pages(self) -> list[Path]:
        return sorted((self.folder / "feedback").glob("*/*.html"))


def parallel(fn, items):
    with ThreadPoolExecutor(len(items)) as pool:
        return list(pool.map(fn, items))


@pytest.fixture
def exchange_course(course_factory, tmp_path):
    course = course_factory(students=STUDENTS3 + ("dave",))
    root = tmp_path / "exchange"
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Exchange.root = "{root}"\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
        # one account simulates the class here: collect takes the student from the name, as nbgrader does
        # (test_identity.py has students with accounts of their own)
        fh.write("c.GradekitCollect.trust_names = True\n")
    student_config = "\n".join(line for line in (course.root / "nbgrader_config.py").read_text().splitlines()
                               if "db_url" not in line) + "\n"
    students = {s: Student(s, tmp_path / "homes" / s, student_config) for s in STUDENTS3}
    return course, root, students


def test_exchange_round_trip(exchange_course, capsys):
    course, root, students = exchange_course
    outbound = root / "transformers101" / "outbound" / ASSIGNMENT

    # -- the instructor releases: one folder per student, nobody can list them
    course.write_settings(ASSIGNMENT, "# the course's own: gk-settings-marker\n[serve]\nattempts = 5\n")
    assert course.cli("release", ASSIGNMENT) == 0
    assert sorted(p.name for p in outbound.iterdir()) == ["alice", "bob", "carol", "dave"]
    assert stat.S_IMODE(outbound.stat().st_mode) == 0o711
    for folder in outbound.iterdir():  # no Unix user of that name: only the releasing account may read
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        for f in folder.iterdir():
            assert stat.S_IMODE(f.stat().st_mode) == 0o600
    assert course.cli("release", ASSIGNMENT) == 2  # already released: --force to overwrite
    capsys.readouterr()
    assert course.cli("release", ASSIGNMENT, "--force") == 0
    said = capsys.readouterr().out.splitlines()[-1]
    assert said.startswith(f"{ASSIGNMENT}: released 4 personal variants to the nbgrader exchange (4 readable by "), said

    # -- `nbgrader list` shows the assignment as released, with the student's own notebook
    listed = students["alice"].nbgrader("list").stderr
    assert re.search(r"transformers101 self_attention\s*$", listed, re.M), listed

    # -- each student fetches: their own variant, nobody else's
    # (zoe was not on the class list when it was released: she gets a clear refusal, nobody's notebook)
    zoe = Student("zoe", students["alice"].home.parent / "zoe", (students["alice"].home / "nbgrader_config.py").read_text())
    procs = parallel(lambda s: s.nbgrader("fetch_assignment", ASSIGNMENT, check=s is not zoe),
                     [*students.values(), zoe])
    assert procs[-1].returncode != 0 and "no notebook for 'zoe'" in procs[-1].stderr
    assert not zoe.folder.exists()
    fetched = {}
    for sid, student in students.items():
        released = sorted(p.name for p in course.release_path(sid).parent.iterdir())
        assert sorted(p.name for p in student.folder.iterdir()) == released
        for name in released:
            assert (student.folder / name).read_bytes() == (course.release_path(sid).parent / name).read_bytes()
        path = student.folder / f"{NOTEBOOK}.ipynb"
        fetched[sid] = path.read_bytes()
        assert fetched[sid] == course.release_path(sid).read_bytes()
        assert stat.S_IMODE(path.stat().st_mode) & 0o600 == 0o600  # theirs to edit
    assert len(set(fetched.values())) == 3
    assert "already downloaded" in students["alice"].nbgrader("list").stderr
    # the assignment's settings file (source/<a>/assignment.toml) reached no student: not in any release
    handed = [*root.rglob("*"), *course.release_path("alice").parents[2].rglob("*"),
              *(p for s in students.values() for p in s.folder.rglob("*"))]
    assert not [p for p in handed if p.is_file() and (p.name == "assignment.toml" or b"gk-settings-marker" in p.read_bytes())]


    # -- the student's own check: nbgrader validate fails on the untouched notebook, passes on the key
    alice = students["alice"]
    (alice.home / "untouched.ipynb").write_bytes(fetched["alice"])
    alice_key = course.answer_key("alice")
    nbformat.write(alice_key, str(alice.folder / f"{NOTEBOOK}.ipynb"))
    untouched, solved = parallel(lambda path: alice.nbgrader("validate", str(path)),
                                 [alice.home / "untouched.ipynb", alice.folder / f"{NOTEBOOK}.ipynb"])
    assert "VALIDATION FAILED" in untouched.stdout + untouched.stderr
    assert "Success! Your notebook passes all the tests." in solved.stdout + solved.stderr
    (alice.home / "untouched.ipynb").unlink()

    # -- submit: alice her key; bob a friend's (alice's) solved notebook; carol the untouched one
    nbformat.write(alice_key, str(students["bob"].folder / f"{NOTEBOOK}.ipynb"))
    parallel(lambda s: s.nbgrader("submit", ASSIGNMENT), list(students.values()))
    assert course.run(NBGRADER, "collect", ASSIGNMENT).returncode == 0
    first = (course.root / "submitted" / "carol" / ASSIGNMENT / "timestamp.txt").read_text()
    due = max((course.root / "submitted" / s / ASSIGNMENT / "timestamp.txt").read_text() for s in STUDENTS3)

    # the due date passes (just after the last of these); carol resubmits her solved notebook, late
    assert course.run(NBGRADER, "db", "assignment", "add", ASSIGNMENT, f"--duedate={due}").returncode == 0
    nbformat.write(course.answer_key("carol"), str(students["carol"].folder / f"{NOTEBOOK}.ipynb"))
    students["carol"].nbgrader("submit", ASSIGNMENT)
    inbound = sorted(p.name for p in (root / "transformers101" / "inbound").iterdir())
    assert [n.split("+")[0] for n in inbound].count("carol") == 2
    course.run(NBGRADER, "collect", "--update", ASSIGNMENT)
    second = (course.root / "submitted" / "carol" / ASSIGNMENT / "timestamp.txt").read_text()
    assert second > first  # the latest submission counts

    # -- grade what nbgrader collect put in submitted/, write and export the grades
    assert course.autograde(jobs=2) == 0
    results = course.results(STUDENTS3)
    assert full_marks(results["alice"])
    assert full_marks(results["carol"])  # her second (solved) submission
    assert results["carol"].timestamp == second.strip()
    # bob's notebook came from alice: graded against bob's own variant, not alice's
    graded_bob = nbformat.read(str(course.root / "autograded" / "bob" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"), 4)
    bob_release, alice_release = course.release("bob"), course.release("alice")
    locked = [c for c in bob_release.cells if c.metadata.get("nbgrader", {}).get("locked")
              and not c.metadata["nbgrader"].get("grade")]
    assert locked
    graded_sources = [c.source for c in graded_bob.cells]
    assert all(c.source in graded_sources for c in locked)
    assert any(c.source not in [a.source for a in alice_release.cells] for c in locked)

    course.run(NBGRADER, "export")
    rows = {r["student_id"]: r for r in csv.DictReader(open(course.root / "grades.csv"))}
    assert float(rows["alice"]["late_submission_penalty"]) == 0.0
    assert float(rows["carol"]["late_submission_penalty"]) == float(rows["carol"]["raw_score"]) > 0  # 'zero'
    assert float(rows["alice"]["score"]) == float(rows["alice"]["raw_score"]) > 0
    assert float(rows["carol"]["score"]) == 0.0

    # -- feedback through the exchange: each student fetches only their own page
    assert course.cli("feedback", ASSIGNMENT) == 0
    carol_page = (course.root / "feedback" / "carol" / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()
    assert "Score: 0 / " in carol_page and "Submitted late: a penalty of " in carol_page
    alice_page = (course.root / "feedback" / "alice" / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()
    assert "Submitted late" not in alice_page
    assert "class overview" not in alice_page and "reports/" not in alice_page   # the page a student is handed
    course.run(NBGRADER, "release_feedback", ASSIGNMENT)
    per_student = len(released)  # one page per notebook
    pages = sorted((root / "transformers101" / "feedback").glob("*.html"))
    assert len(pages) == 3 * per_student
    parallel(lambda s: s.nbgrader("fetch_feedback", ASSIGNMENT), list(students.values()))
    for sid, student in students.items():
        got = student.feedback_pages()
        assert len(got) == per_student and f"{NOTEBOOK}.html" in [g.name for g in got], (sid, got)
        for page in got:
            text = page.read_text()
            assert f"Student: <b>{sid}</b>" in text
            assert "class overview" not in text and "reports/" not in text   # the student's copy: no dead link
            assert all(f"Student: <b>{other}</b>" not in text for other in STUDENTS3 if other != sid)
    # carol's pages are for her second submission (the folder is named by its timestamp)
    assert {p.parent.name for p in students["carol"].feedback_pages()} == {second.strip()}


def test_release_feedback_skips_a_resubmission_collected_after_grading(course_factory, tmp_path):
    """Feedback graded from an older submission is not filed under a newer one's secret."""
    from gradekit.service.nbgrader_feedback import GradekitReleaseFeedback
    from gradekit.exchange.filesystem.steps import run_step

    course = course_factory(students=("alice",))
    course.generate()
    folder = course.root / "submitted" / "alice" / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text("2026-01-01 10:00:00.000000 UTC")
    (folder / "submission_secret.txt").write_text("s" * 128)
    course.submit("alice", course.answer_key("alice"))
    assert course.autograde(jobs=2) == 0
    assert course.cli("feedback", ASSIGNMENT) == 0
    (tmp_path / "exchange").mkdir()  # nbgrader: the exchange root must exist
    exchange = {"Exchange.root": str(tmp_path / "exchange")}
    step = run_step(GradekitReleaseFeedback, course.root, ASSIGNMENT, **exchange)
    assert step.released_for == {"alice": [NOTEBOOK]}
    (folder / "timestamp.txt").write_text("2026-01-02 10:00:00.000000 UTC")  # collected, not regraded
    step = run_step(GradekitReleaseFeedback, course.root, ASSIGNMENT, **exchange)
    assert step.released_for == {}


def test_release_feedback_gives_back_what_nbgrader_release_feedback_gives(course_factory, tmp_path):
    """``gradekit release-feedback`` on the filesystem exchange: the same pages, under the same names, with the
    same modes as ``gradekit feedback`` and ``nbgrader release_feedback`` (gradekit's class) -- both through
    the exchange's give_feedback; a regrade gives them again, and a course without an exchange says so."""
    import shutil
    import stat

    from gradekit.service.nbgrader_feedback import GradekitReleaseFeedback
    from gradekit.exchange.filesystem.steps import run_step

    course = course_factory(students=("alice", "bob"))
    course.generate()
    for student in ("alice", "bob"):
        folder = course.root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / "timestamp.txt").write_text("2026-01-01 10:00:00.000000 UTC")
        (folder / "submission_secret.txt").write_text(student * 40)
        course.submit(student, course.answer_key(student))
    assert course.autograde(jobs=2) == 0
    root = tmp_path / "exchange"
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Exchange.root = "{root}"\n')
    assert course.cli("release-feedback", ASSIGNMENT) == 2   # no exchange yet: one line, exit 2
    (root / "transformers101").mkdir(parents=True)
    feedback = root / "transformers101" / "feedback"

    def released() -> dict[str, tuple[bytes, int]]:
        return {p.name: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode)) for p in sorted(feedback.glob("*.html"))}

    assert course.cli("feedback", ASSIGNMENT) == 0
    run_step(GradekitReleaseFeedback, course.root, ASSIGNMENT)
    by_nbgrader = released()
    assert len(by_nbgrader) == 2
    shutil.rmtree(feedback)
    assert course.cli("release-feedback", ASSIGNMENT) == 0
    assert released() == by_nbgrader
    # a regrade gives the pages that are out again; one whose feedback is not out gets none
    for page in feedback.glob("*.html"):
        page.unlink()
    from gradekit.service.delivery import after_regrade
    from gradekit.exchange.filesystem.course import FilesystemExchange

    exchange = FilesystemExchange(course.course)
    assert after_regrade(course.course, ASSIGNMENT, ["alice", "bob"], exchange) == []   # none out: none given
    assert course.cli("release-feedback", ASSIGNMENT, "--student", "alice") == 0
    (alice,) = released()
    given = released()[alice]
    # an older grading's page out: the regrade swaps the new one in
    (feedback / alice).write_text("the page of an earlier grading")
    lines = after_regrade(course.course, ASSIGNMENT, ["alice", "bob"], exchange)
    assert lines == [f"{ASSIGNMENT}: feedback given again to 1 student(s) whose feedback was out"]
    assert released() == {alice: given} and alice in by_nbgrader
    # the same page again: the file is left as it is (its time and inode would tell a student which
    # of their hand-ins a release gave again: under counts = "best", the one that counts)
    before = (feedback / alice).stat()
    assert after_regrade(course.course, ASSIGNMENT, ["alice"], exchange) == lines[:1]
    after = (feedback / alice).stat()
    times = lambda st: (st.st_ino, st.st_mtime_ns, st.st_ctime_ns)  # noqa: E731
    assert times(after) == times(before)
    assert released() == {alice: given}


def test_gradekit_collect_takes_in_through_the_exchange_what_nbgrader_collect_does(exchange_course):
    """``gradekit collect ASSIGNMENT`` (no zip) reads the course's exchange through its interface -- here the
    filesystem exchange -- and installs what ``nbgrader collect`` with gradekit's class installs: each
    student's latest hand-in, as the ledger kept it, with its trusted time and receipt, 0750/0640."""
    import shutil
    import time

    course, root, students = exchange_course
    assert course.cli("release", ASSIGNMENT) == 0
    alice, bob = students["alice"], students["bob"]
    for s in (alice, bob):
        s.nbgrader("fetch_assignment", ASSIGNMENT)
    alice.nbgrader("submit", ASSIGNMENT)
    time.sleep(1.1)                                        # nbgrader names a hand-in by the second
    (alice.folder / f"{NOTEBOOK}.ipynb").write_bytes(b'{"cells": []}')
    alice.nbgrader("submit", ASSIGNMENT)
    bob.nbgrader("submit", ASSIGNMENT)
    submitted = course.root / "submitted"

    def tree() -> dict[str, tuple[bytes, int]]:
        return {str(p.relative_to(submitted)): (p.read_bytes() if p.is_file() else b"", stat.S_IMODE(p.stat().st_mode))
                for p in sorted(submitted.rglob("*"))}

    course.run(NBGRADER, "collect", ASSIGNMENT)
    by_nbgrader = tree()
    assert by_nbgrader[f"alice/{ASSIGNMENT}/{NOTEBOOK}.ipynb"][0] == b'{"cells": []}'      # her latest
    shutil.rmtree(submitted)
    out = course.run(str(VENV_BIN / "gradekit"), "collect", ASSIGNMENT).stdout
    assert f"{ASSIGNMENT}: collected 2 submission(s) into submitted/" in out, out
    assert tree() == by_nbgrader
    again = course.run(str(VENV_BIN / "gradekit"), "collect", ASSIGNMENT).stdout
    assert "collected 0 submission(s) into submitted/, 2 there already" in again, again


def test_release_one_student_and_errors(exchange_course, capsys):
    course, root, students = exchange_course
    # nothing generated: release generates the variants itself
    capsys.readouterr()
    assert course.cli("release", ASSIGNMENT, "--student", "dave") == 0
    said = capsys.readouterr().out.splitlines()[-1]
    if os.geteuid() == 0:   # no Unix account of that name: the releasing account alone reads it
        assert said == (f"{ASSIGNMENT}: released 1 personal variant to the nbgrader exchange (1 readable by you "
                        "alone: no account of that name)"), said
    outbound = root / "transformers101" / "outbound" / ASSIGNMENT
    assert [p.name for p in outbound.iterdir()] == ["dave"]
    assert course.cli("release", ASSIGNMENT, "--student", "alice") == 0
    assert sorted(p.name for p in outbound.iterdir()) == ["alice", "dave"]
    assert course.cli("release", ASSIGNMENT, "--student", "alice") == 2  # already there
    assert course.cli("release", ASSIGNMENT, "--student", "nobody") == 2  # not in the gradebook
    assert course.cli("release", "no_such_assignment") == 2


def test_demo_round_trip(course_factory, capsys):
    from gradekit.exchange.filesystem.steps import demo_round_trip

    course = course_factory(students=STUDENTS3)
    course.generate()
    assert demo_round_trip(course.root, ASSIGNMENT, list(STUDENTS3)) == 0
    out = capsys.readouterr().out
    for sid in STUDENTS3:
        assert re.search(rf"{sid}: fetched .*{NOTEBOOK}\.ipynb.*their own variant", out), out
    assert "NOT their variant" not in out
    assert sorted(p.name for p in (course.root / "exchange_demo_submitted").iterdir()) == list(STUDENTS3)


def full_marks(result) -> bool:
    """The self_attention notebook scored full marks (other notebooks of the assignment aside)."""
    [nb] = [n for n in result.notebooks if n.name == NOTEBOOK]
    return nb.score == nb.possible > 0


def test_feedback_pages_are_named_as_nbgrader_names_them():
    """The live service names a page without importing nbgrader (its package import takes seconds)."""
    from nbgrader.utils import notebook_hash

    from gradekit.exchange.filesystem.layout import feedback_name

    for secret, notebook in [("ab" * 64, "quiz"), ("0f" * 64 + "\n", "self_attention"), ("x", "名字")]:
        assert feedback_name(secret, notebook) == notebook_hash(secret=secret, notebook_id=notebook) + ".html"
