"""Scores to the test LMS: each student's counting score, once, as the policy shows it."""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from conftest import ASSIGNMENT

from lti.conftest import grade, gradebook, launch, scores_of


def _sync(course) -> int:
    return course.cli("lti", "sync", ASSIGNMENT)


def test_each_score_once_then_again_when_it_changes(lti_course, lms, capsys):
    for student in ("ada", "wei"):
        launch(lti_course, lms, student)
        grade(lti_course, student, 0.5)
    assert _sync(lti_course) == 0
    book = gradebook(lms)
    assert len(book["lineitems"]) == 1
    item = book["lineitems"][0]
    assert item["resourceId"] == ASSIGNMENT and item["tag"].endswith(f":{ASSIGNMENT}") and item["scoreMaximum"] > 0
    ada = scores_of(lms, "ada")
    assert len(ada) == 1
    score = ada[0]
    assert score["gradingProgress"] == "FullyGraded" and score["activityProgress"] == "Completed"
    assert score["scoreMaximum"] == item["scoreMaximum"]
    assert abs(score["scoreGiven"] - item["scoreMaximum"] / 2) < 0.01
    assert dt.datetime.fromisoformat(score["timestamp"]).tzinfo is not None and "." in score["timestamp"]
    assert score["https://canvas.instructure.com/lti/submission"]["submitted_at"].startswith(
        "2026-12-01T10:00:00.123456"
    )

    assert _sync(lti_course) == 0  # nothing changed: nothing sent
    assert sum(s["posts"] for s in gradebook(lms)["scores"]) == 2

    grade(lti_course, "ada", 0.5, manual={g: 0.0 for g in _cells(lti_course)[:1]})  # a person's grade
    assert _sync(lti_course) == 0
    ada = scores_of(lms, "ada")
    assert len(ada) == 2 and ada[1]["scoreGiven"] < ada[0]["scoreGiven"] and ada[1]["timestamp"] > ada[0]["timestamp"]
    assert len(scores_of(lms, "wei")) == 1
    capsys.readouterr()
    assert lti_course.cli("lti", "status") == 0
    assert "3 sent, 0 pending, 0 failed" in capsys.readouterr().out


def test_before_the_due_date_only_what_the_policy_shows(lti_course, lms):
    from gradekit.service.policy import Policy

    first = _cells(lti_course)[0]
    lti_course.write_settings(ASSIGNMENT, f'[serve]\nhidden_until_due = ["{first}"]\n')
    hidden = Policy.of(lti_course.course, ASSIGNMENT).hidden
    assert first in hidden
    with lti_course.gradebook() as gb:
        gb.update_or_create_assignment(
            ASSIGNMENT, duedate=dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(days=3)
        )
    try:
        grade(lti_course, "wei", 1.0)
        assert _sync(lti_course) == 0
        wei = scores_of(lms, "wei")[-1]
        assert wei["gradingProgress"] == "Pending" and wei["activityProgress"] == "Submitted"
        shown = sum(g.max_score for g in _grades(lti_course, "wei") if g.name not in hidden)
        assert abs(wei["scoreGiven"] - shown) < 0.01 and shown < wei["scoreMaximum"]
    finally:
        lti_course.write_settings(ASSIGNMENT, "")
        with lti_course.gradebook() as gb:
            gb.update_or_create_assignment(
                ASSIGNMENT, duedate=dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=1)
            )
    assert _sync(lti_course) == 0  # the due date passed: everything, FullyGraded
    wei = scores_of(lms, "wei")[-1]
    assert wei["gradingProgress"] == "FullyGraded" and abs(wei["scoreGiven"] - wei["scoreMaximum"]) < 0.01


class _Grade(NamedTuple):
    name: str
    max_score: float


def _grades(course, student):
    with course.gradebook() as gb:
        sub = gb.find_submission(ASSIGNMENT, student)
        return [_Grade(g.name, g.max_score) for nb in sub.notebooks for g in nb.grades]


def _cells(course):
    return [g.name for g in _grades(course, "ada")]


def test_a_refused_score_is_kept_with_the_lms_line_and_sent_again_by_sync(lti_course, lms, capsys):
    wei = lms.by_username("wei")
    del lms.people[wei.sub]  # dropped at the LMS; the course has not read its roster since
    try:
        grade(lti_course, "wei", 0.25)
        assert _sync(lti_course) == 1
        capsys.readouterr()
        assert lti_course.cli("lti", "status") == 0
        failed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("failed wei")]
        assert len(failed) == 1 and "answered 403" in failed[0] and "is not a learner of this course" in failed[0]
    finally:
        lms.people[wei.sub] = wei  # back in the course
    assert _sync(lti_course) == 0
    assert abs(scores_of(lms, "wei")[-1]["scoreGiven"] / scores_of(lms, "wei")[-1]["scoreMaximum"] - 0.25) < 1e-3
