"""gradekit.grading.incremental: what a grading depends on, and the stored results still valid."""

from __future__ import annotations

from gradekit.course import Course
from gradekit.grading.incremental import assignment_version, submission_digest, unchanged
from gradekit.results import RESULTS_FILE

A = "self_attention"


def _folder(tmp_path, **files):
    folder = tmp_path / "sub"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text)
    return folder


def test_the_digest_is_the_submission_the_version_the_seed_and_the_language(tmp_path):
    folder = _folder(tmp_path, self_attention_ipynb="{}", timestamp_txt="2026-12-01 10:00:00 UTC")
    base = submission_digest(folder, "v1", 7)
    assert submission_digest(folder, "v1", 7) == base
    assert submission_digest(folder, "v2", 7) != base              # graders, source or gradekit changed
    assert submission_digest(folder, "v1", 8) != base              # another student's variant
    assert submission_digest(folder, "v1", 7, "zh") != base        # what the results say changes with the language
    (folder / "timestamp.txt").write_text("2026-12-01 11:00:00 UTC")
    assert submission_digest(folder, "v1", 7) != base              # a resubmission of the same file counts
    (folder / "timestamp.txt").write_text("2026-12-01 10:00:00 UTC")
    (folder / "self_attention.ipynb").write_text('{"cells": []}')
    assert submission_digest(folder, "v1", 7) != base


def test_a_symlink_in_the_submission_is_not_followed(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("one")
    folder = _folder(tmp_path, self_attention_ipynb="{}")
    (folder / "link.ipynb").symlink_to(secret)
    before = submission_digest(folder, "v", 1)
    secret.write_text("two")
    assert submission_digest(folder, "v", 1) == before


def test_the_version_follows_the_graders_and_not_the_qa_set(course):
    c = Course.load(course.root)
    before = assignment_version(c, A)
    (course.root / "autograder" / A / "mistakes" / "extra.py").write_text("# names: something\n# %% softmax\nx = 1\n")
    assert assignment_version(c, A) == before              # the QA set grades no one
    grader = course.root / "autograder" / A / "test_softmax.py"
    grader.write_text(grader.read_text() + "\n# a comment changes the grader's file\n")
    assert assignment_version(c, A) != before


def test_only_results_of_unchanged_submissions_are_reused(course):
    course.generate("alice", "bob")
    for student in ("alice", "bob"):
        course.submit(student, course.answer_key(student))
    assert course.autograde("alice", "bob") == 0
    c = Course.load(course.root)
    assert set(unchanged(c, A, ["alice", "bob"])) == {"alice", "bob"}
    key = course.answer_key("bob")
    key.cells[0].source += "\n"
    course.submit("bob", key)
    (course.root / "autograded" / "alice" / A / RESULTS_FILE).write_text("{half-written")
    assert unchanged(c, A, ["alice", "bob"]) == {}          # bob's file changed; alice's result is unreadable
