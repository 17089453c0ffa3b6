"""What the LMS should hold, by policy: the one function every score passes through (gradekit.lti.want)."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import ASSIGNMENT

from lti.conftest import grade

NOW = dt.datetime(2026, 12, 10, 12, 0)


@pytest.fixture
def due_ahead(lti_course):
    with lti_course.gradebook() as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=NOW + dt.timedelta(days=1))
    yield
    with lti_course.gradebook() as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=None)
    lti_course.write_settings(ASSIGNMENT, "")


def _score(course, student, now=NOW):
    from gradekit.lti import want

    scores, _due = want.scores(course.course, ASSIGNMENT, now)
    return next(s for s in scores if s.student == student)


def _first_cell(course):
    with course.gradebook() as gb:
        return [g.name for nb in gb.find_submission(ASSIGNMENT, "ada").notebooks for g in nb.grades][0]


@pytest.mark.parametrize(
    "settings, shown",
    [
        ('[serve]\nbefore_due = "received"\n', False),  # only that it arrived
        ('[serve]\nbefore_due = "score"\n', True),
        ('[serve]\ncounts = "best"\nhidden_until_due = ["{cell}"]\n', False),  # which attempt counts would tell
    ],
)
def test_before_the_due_date(lti_course, due_ahead, settings, shown):
    grade(lti_course, "ada", 1.0)
    lti_course.write_settings(ASSIGNMENT, settings.format(cell=_first_cell(lti_course)))
    s = _score(lti_course, "ada")
    assert (s.activity, s.grading) == ("Submitted", "Pending")
    assert (s.given is not None) == shown
    body = s.body("u-1", "2026-12-10T12:00:00.000000+00:00")
    assert ("scoreGiven" in body) == shown and ("scoreMaximum" in body) == shown
    after = _score(lti_course, "ada", NOW + dt.timedelta(days=2))
    assert (after.grading, after.activity, after.given) == ("FullyGraded", "Completed", after.maximum)


def test_a_cell_waiting_for_a_person_is_pending_manual_and_a_late_penalty_counts(lti_course):
    grade(lti_course, "ada", 1.0)
    with lti_course.gradebook() as gb:
        sub = gb.find_submission(ASSIGNMENT, "ada")
        nb = sub.notebooks[0]
        nb.grades[0].needs_manual_grade = True
        nb.late_submission_penalty = 2.0
        gb.db.commit()
    s = _score(lti_course, "ada")
    assert s.grading == "PendingManual" and abs(s.given - (s.maximum - 2.0)) < 1e-6
    with lti_course.gradebook() as gb:
        gb.find_submission(ASSIGNMENT, "ada").notebooks[0].late_submission_penalty = None
        gb.db.commit()
    grade(lti_course, "ada", 1.0)
