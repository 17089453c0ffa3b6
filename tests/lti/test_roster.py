"""NRPS into the gradebook; a student who drops keeps their grades; the tool's keys; registration data."""

from __future__ import annotations

import json
import os
import stat

from conftest import ASSIGNMENT

from lti.conftest import grade, launch
from lti.lms import LEARNER, Person


def test_the_roster_brings_names_and_keeps_who_dropped(lti_course, lms, capsys):
    launch(lti_course, lms, "prof")  # the context and its NRPS URL come with a launch
    for s in ("ada", "wei"):
        launch(lti_course, lms, s)  # custom usernames: NRPS does not carry them, launches do
    lms.people["u-new"] = Person("u-new", "zoe", "Zoe Zhang", "zoe@example.edu", [LEARNER])
    capsys.readouterr()
    assert lti_course.cli("lti", "roster") == 0
    out = capsys.readouterr().out
    assert out.startswith("2 student(s) in the gradebook, 1 instructor(s)") and "1 with no username" in out, out
    assert "the hub's user list not updated (no --hub-api" in out and "new in the gradebook" not in out, out
    launch(lti_course, lms, "zoe")  # her first launch gives her username: new in the gradebook, no notebook yet
    assert lti_course.cli("lti", "roster") == 0
    out = capsys.readouterr().out
    assert out.startswith("3 student(s) in the gradebook") and "no username" not in out, out
    assert out.splitlines()[1] == (
        "new in the gradebook: zoe; their notebooks: "
        "gradekit generate ASSIGNMENT --student zoe && gradekit release ASSIGNMENT --student zoe"
    ), out
    with lti_course.gradebook() as gb:
        ada = gb.find_student("ada")
        assert (ada.first_name, ada.last_name, ada.email) == ("Student", "ada", "ada@example.edu")
        assert ada.lms_user_id == lms.by_username("ada").sub
    grade(lti_course, "wei", 0.5)
    del lms.people[lms.by_username("wei").sub]  # wei drops the course
    del lms.people["u-new"]
    assert lti_course.cli("lti", "roster") == 0
    assert "dropped (kept with their grades): wei" in capsys.readouterr().out
    with lti_course.gradebook() as gb:
        assert gb.find_submission(ASSIGNMENT, "wei").score > 0  # still there, graded


def test_keys_are_private_and_rotate_with_the_last_one_published(lti_course, capsys):
    from gradekit.lti import keys

    course = lti_course.course
    first = keys.current(course)
    folder = course.root / ".gradekit" / "lti" / "keys"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(folder / f"{first.kid}.pem").st_mode) == 0o600
    assert lti_course.cli("lti", "keys", "--rotate") == 0
    published = json.loads(capsys.readouterr().out)["keys"]
    second = keys.current(course)
    assert second.kid != first.kid and [k["kid"] for k in published] == [second.kid, first.kid]
    assert all("d" not in k and k["alg"] == "RS256" for k in published)  # public halves only
    keys.rotate(course)
    assert first.kid not in [k["kid"] for k in keys.jwks(course)["keys"]]  # two published at most


def test_registration_data_for_each_lms(lti_course, lms, capsys):
    assert lti_course.cli("lti", "tool-config", "--lms", "canvas") == 0
    canvas = json.loads(capsys.readouterr().out)
    assert canvas["oidc_initiation_url"].endswith("/hub/lti13/oauth_login")
    assert canvas["public_jwk_url"].endswith("/services/gradekit-lti/jwks")
    assert canvas["custom_fields"] == {"username": "$Canvas.user.loginId"}
    placements = {p["placement"]: p for p in canvas["extensions"][0]["settings"]["placements"]}
    assert placements["assignment_selection"]["message_type"] == "LtiDeepLinkingRequest"
    for lms_name in ("moodle", "brightspace", "blackboard", "other"):
        assert lti_course.cli("lti", "tool-config", "--lms", lms_name) == 0
        text = capsys.readouterr().out
        assert "/hub/lti13/oauth_callback" in text and "/services/gradekit-lti/jwks" in text, text


def test_a_platform_with_a_bad_url_is_one_line(lti_course, capsys):
    code = lti_course.cli(
        "lti",
        "platform",
        "--issuer",
        "not a url",
        "--client-id",
        "x",
        "--deployment",
        "d",
        "--auth-url",
        "https://a/",
        "--token-url",
        "https://a/",
        "--jwks-url",
        "https://a/",
        "--hub-url",
        "https://h/",
    )
    err = capsys.readouterr().err
    assert code == 2 and err == "gradekit: LTI platform: issuer must be an http(s) URL, not 'not a url'\n"


def test_generate_with_no_students_yet_names_the_roster_in_an_lms_course(tmp_path, capsys):
    """An LMS course's students come with their first launch and the roster, not with a roster.csv."""
    from conftest import CourseDir

    course = CourseDir.create(tmp_path / "course", students=())
    assert course.cli("generate", ASSIGNMENT) == 2
    assert "nbgrader db student import roster.csv" in capsys.readouterr().err
    lms = "https://lms.example.edu"
    assert course.cli("lti", "platform", "--issuer", lms, "--client-id", "c1", "--deployment", "d1",
                      "--auth-url", lms + "/auth", "--token-url", lms + "/token", "--jwks-url", lms + "/jwks",
                      "--hub-url", "https://hub.example.edu/", "--username-claim", "custom_username") == 0  # fmt: skip
    capsys.readouterr()
    assert course.cli("generate", ASSIGNMENT) == 2
    err = capsys.readouterr().err
    assert "run `gradekit lti roster` after the students' first launch" in err and "\n" not in err.strip(), err
