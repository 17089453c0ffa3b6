"""LMS round trips: hand out per-student notebooks, import Canvas and Moodle bulk downloads."""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import ASSIGNMENT, NOTEBOOK

STUDENTS = ("alice", "bob", "carol", "dave")
LMS_IDS = {"alice": "101", "bob": "102", "carol": "103", "dave": "104"}
EMAILS = {s: f"{s}@uni.example" for s in STUDENTS}


@pytest.fixture
def lms_course(course_factory):
    course = course_factory(students=())
    with course.gradebook() as gb:
        for s in STUDENTS:
            gb.update_or_create_student(s, email=EMAILS[s], lms_user_id=LMS_IDS[s],
                                        first_name=s.title(), last_name="Smith")
    return course


def make_zip(path: Path, entries: dict[str, bytes], dates: dict[str, tuple] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=(dates or {}).get(name, (2026, 11, 20, 12, 0, 0)))
            zf.writestr(info, data)
    return path


def submitted(course, student: str) -> Path:
    return course.root / "submitted" / student / ASSIGNMENT


@pytest.mark.e2e
def test_release_zip_and_canvas_round_trip(lms_course, tmp_path, capsys):
    course = lms_course
    out = tmp_path / "handout"
    assert course.cli("release", ASSIGNMENT, "--zip", str(out)) == 0
    index = list(csv.DictReader(open(out / "index.csv")))
    assert [r["id"] for r in index] == list(STUDENTS)
    assert index[0]["lms_user_id"] == "101" and index[0]["email"] == "alice@uni.example"
    for s in STUDENTS:
        assert (out / s / f"{NOTEBOOK}.ipynb").read_bytes() == course.release_path(s).read_bytes()
        with zipfile.ZipFile(out / f"{ASSIGNMENT}_{s}.zip") as zf:
            assert zf.read(f"{ASSIGNMENT}/{NOTEBOOK}.ipynb") == course.release_path(s).read_bytes()
    assert len({(out / s / f"{NOTEBOOK}.ipynb").read_bytes() for s in STUDENTS}) == len(STUDENTS)

    # Canvas bulk download: alice (twice: Canvas renames the resubmission -1), bob late, an unknown id;
    # carol and dave did not submit
    key = {s: nbformat.writes(course.answer_key(s)).encode() for s in ("alice", "bob")}
    archive = make_zip(tmp_path / "submissions.zip", {
        f"smithalice_101_9001_{NOTEBOOK}.ipynb": b"old",
        f"smithalice_101_9002_{NOTEBOOK}-1.ipynb": key["alice"],
        f"smithbob_late_102_9003_{NOTEBOOK}.ipynb": key["bob"],
        f"doejane_999_9004_{NOTEBOOK}.ipynb": b"{}",
    }, {f"smithalice_101_9001_{NOTEBOOK}.ipynb": (2026, 11, 20, 9, 0, 0),
        f"smithalice_101_9002_{NOTEBOOK}-1.ipynb": (2026, 11, 20, 11, 30, 0),
        f"smithbob_late_102_9003_{NOTEBOOK}.ipynb": (2026, 11, 22, 8, 0, 0)})
    capsys.readouterr()
    assert course.cli("collect", ASSIGNMENT, str(archive), "--match", "lms_user_id") == 0
    report = capsys.readouterr().out
    assert "imported 2 submission(s)" in report
    assert f"UNMATCHED file (no student in the roster): doejane_999_9004_{NOTEBOOK}.ipynb" in report
    assert "NO SUBMISSION from carol" in report and "NO SUBMISSION from dave" in report
    assert "marked late by the LMS: bob" in report
    assert (submitted(course, "alice") / f"{NOTEBOOK}.ipynb").read_bytes() == key["alice"]  # the newer one
    assert sorted(p.name for p in submitted(course, "alice").iterdir()) == [f"{NOTEBOOK}.ipynb", "timestamp.txt"]
    assert (submitted(course, "alice") / "timestamp.txt").read_text() == "2026-11-20 11:30:00.000000 UTC"
    assert (submitted(course, "bob") / "timestamp.txt").read_text() == "2026-11-22 08:00:00.000000 UTC"
    assert not submitted(course, "carol").exists()

    # the imported submissions grade like any other
    assert course.autograde("alice", "bob", jobs=2) == 0
    results = course.results(["alice", "bob"])
    for student in ("alice", "bob"):
        [nb] = [n for n in results[student].notebooks if n.name == NOTEBOOK]
        assert nb.score == nb.possible > 0


def test_moodle_roster_and_never_older(lms_course, tmp_path, capsys):
    course = lms_course
    # a newer submission of carol's is already there (e.g. from the exchange)
    submitted(course, "carol").mkdir(parents=True)
    (submitted(course, "carol") / f"{NOTEBOOK}.ipynb").write_text("newer")
    (submitted(course, "carol") / "timestamp.txt").write_text("2026-11-25 10:00:00.000000 UTC")
    # Moodle folders carry a participant number: the roster maps it to the student id
    roster = tmp_path / "roster.csv"
    archive = make_zip(tmp_path / "moodle.zip", {
        f"Alice Smith_7001_assignsubmission_file_/{NOTEBOOK}.ipynb": b"alice's",
        f"Carol Smith_7003_assignsubmission_file_/{NOTEBOOK}.ipynb": b"carol's older",
        f"Bob Smith_7002_assignsubmission_file_/{NOTEBOOK}.ipynb": b"bob's",
        f"Mallory Evil_7666_assignsubmission_file_/{NOTEBOOK}.ipynb": b"who?",
        "__MACOSX/._junk": b"",
    })
    roster.write_text("id,lms_user_id\n" + "".join(f"{s},{7001 + i}\n" for i, s in enumerate(STUDENTS)))
    capsys.readouterr()
    assert course.cli("collect", ASSIGNMENT, str(archive), "--roster", str(roster), "--match", "lms_user_id") == 0
    report = capsys.readouterr().out
    assert "imported 2 submission(s)" in report
    assert f"UNMATCHED file (no student in the roster): Mallory Evil_7666_assignsubmission_file_/{NOTEBOOK}.ipynb" in report
    assert "kept carol's newer submission" in report
    assert "NO SUBMISSION from dave" in report
    assert "__MACOSX" not in report
    assert (submitted(course, "alice") / f"{NOTEBOOK}.ipynb").read_text() == "alice's"
    assert (submitted(course, "bob") / f"{NOTEBOOK}.ipynb").read_text() == "bob's"
    assert (submitted(course, "carol") / f"{NOTEBOOK}.ipynb").read_text() == "newer"


def test_match_by_email_login(lms_course, tmp_path, capsys):
    course = lms_course
    archive = make_zip(tmp_path / "generic.zip", {f"alice/{NOTEBOOK}.ipynb": b"a", f"hw_bob_{NOTEBOOK}.ipynb": b"b"})
    assert course.cli("collect", ASSIGNMENT, str(archive), "--match", "email") == 0
    report = capsys.readouterr().out
    assert (submitted(course, "alice") / f"{NOTEBOOK}.ipynb").read_text() == "a"
    assert "UNMATCHED" not in report and "imported 2 submission(s)" in report
    # the generic name keeps its full name: gradekit's grader reports the wrong name on its own
    assert (submitted(course, "bob") / f"hw_bob_{NOTEBOOK}.ipynb").exists()


def test_bad_input_is_one_line(lms_course, tmp_path, capsys):
    course = lms_course
    not_zip = tmp_path / "grades.zip"
    not_zip.write_text("not a zip")
    assert course.cli("collect", ASSIGNMENT, str(not_zip)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a zip file" in err
    assert course.cli("collect", ASSIGNMENT, str(tmp_path / "missing.zip")) == 2
    assert "does not exist" in capsys.readouterr().err
    roster = tmp_path / "roster.csv"
    roster.write_text("name,email\nalice,alice@uni.example\n")
    archive = make_zip(tmp_path / "ok.zip", {"x.ipynb": b""})
    assert course.cli("collect", ASSIGNMENT, str(archive), "--roster", str(roster), "--match", "email") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no 'id' column" in err
    assert course.cli("collect", ASSIGNMENT, str(archive), "--roster", str(tmp_path / "nope.csv")) == 2
    assert "cannot read the roster" in capsys.readouterr().err
