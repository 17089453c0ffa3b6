"""gradekit.settings: an assignment's settings, declared with it in source/<assignment>/assignment.toml.

Its names (cells, notebooks) are its own: one assignment's test_tq1 waits for the due
date while another's shows, a concept check is multiple choice in one assignment
only. The course's c.Gradekit values are defaults an assignment overrides. A key that
is unknown, misplaced, or the course's is refused in one line naming the file, the
key and the keys there are; so is an assignment's key set for the whole course.
"""

from __future__ import annotations

import re
import tomllib

import pytest

from conftest import ASSIGNMENT
from gradekit import settings
from gradekit.sandbox.bwrap import bwrap_path

MHA = "multi_head_attention"


def _course(course_factory, **files):
    course = course_factory(quiz=True)
    for assignment, text in files.items():
        course.write_settings(assignment, text)
    return course


def test_every_key_is_declared_once_with_its_help_and_makes_the_courses_trait():
    from gradekit.course import _settings_class

    assert len(settings.BY_NAME) == len(settings.KEYS)
    traits = _settings_class().class_traits(config=True)
    for key in settings.KEYS:
        assert key.section in settings.SECTIONS and len(key.help) > 30, key
        assert (key.name in traits) == key.course, key.name  # cell names are no course's
        if key.course:
            assert traits[key.name].help.startswith(key.help) and traits[key.name].default_value == key.default
    # the file gradekit new writes: every key, commented out with the course's value, parses to nothing set
    text = settings.template(sets={"choice_cells": ["test_concepts"], "attempts": 3})
    assert tomllib.loads(text) == {"grading": {"choice_cells": ["test_concepts"]}, "serve": {"attempts": 3}, "limits": {}}
    assert all(f"# {k.name} = " in text for k in settings.KEYS if k.name not in ("choice_cells", "attempts"))


def test_the_courses_values_are_defaults_an_assignment_overrides(course_factory):
    course = _course(course_factory, **{ASSIGNMENT: "[serve]\nattempts = 5\ncounts = \"best\"\n[limits]\ncall_timeout = 30\n"})
    course.configure(attempts=3, call_timeout=15.0, memory=2048)
    loaded = course.course
    mine, other = loaded.settings_of(ASSIGNMENT), loaded.settings_of(MHA)
    assert (mine.attempts, mine.counts, other.attempts, other.counts) == (5, "best", 3, "last")
    assert loaded.limits_for(ASSIGNMENT).call_timeout == 30 and loaded.limits_for(MHA).call_timeout == 15
    assert loaded.limits_for(ASSIGNMENT).memory == loaded.limits_for(MHA).memory == 2048
    assert mine.set_here == {"attempts", "counts", "call_timeout"} and other.file is not None and not other.set_here


def test_one_assignments_test_tq1_is_hidden_until_the_due_date_while_anothers_shows(course_factory):
    """Both assignments have a test_tq1, a value answer: hidden until the due date by default;
    multi_head_attention shows its own at once (shown_before_due), self_attention's still waits --
    in the policy gradekit serve reads, and on the feedback page it writes before the due date."""
    from gradekit.service.serve import Service

    course = _course(course_factory, **{MHA: '[serve]\nshown_before_due = ["test_tq1"]\n'})
    service = Service(course.course, [ASSIGNMENT, MHA])
    mine, other = service.policy(ASSIGNMENT).hidden, service.policy(MHA).hidden
    assert "test_tq1" in mine and "test_tq1" not in other
    assert {"test_tq2", "test_tq3"} <= other            # the rest of its value answers still wait
    assert "test_softmax" not in mine and "test_attention" not in other   # code answers show at once
    assert "quiz" in mine                               # named whole in its hidden_until_due
    seen = course.course.settings_of(MHA).visibility()
    assert seen.values_shown == ("test_tq1",) and seen.hidden["test_tq2"] == settings.VALUE


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_the_page_before_the_due_date_hides_each_assignments_own_cells(course_factory, tmp_path):
    from gradekit.grading.options import Options
    from gradekit.grading.pipeline import Pipeline
    from gradekit.grading.told import TOLD
    from gradekit.pages.feedback import Disclosure, write_feedback
    from gradekit.release.generate import write_answer_key
    from gradekit.service.policy import Policy

    course = _course(course_factory, **{MHA: '[serve]\nshown_before_due = ["test_tq1"]\n'})
    loaded = course.course
    pages = {}
    for assignment in (ASSIGNMENT, MHA):
        folder = tmp_path / assignment / "submitted"
        write_answer_key(loaded, assignment, "alice", folder)
        result = Pipeline(loaded, assignment, Options()).grade("alice", folder, tmp_path / assignment / "graded")
        policy = Policy.of(loaded, assignment)
        written = write_feedback(loaded, result, tmp_path / assignment / "feedback",
                                 Disclosure(policy.before_due, policy.hidden, "2030-01-01 00:00 UTC"), told=TOLD)
        pages[assignment] = {p.stem: p.read_text() for p in written}
    def waits(page: str, gid: str) -> bool:
        section = re.search(rf'<section class="card" id="{gid}">(.*?)</section>', page, re.S)
        assert section, gid
        return 'class="wait"' in section.group(1)

    quiz, mha = pages[ASSIGNMENT]["quiz"], pages[MHA][MHA]
    assert waits(quiz, "test_tq1") and not waits(mha, "test_tq1")       # the same name, two assignments
    assert waits(mha, "test_tq2") and not waits(mha, "test_attention")


def test_a_concept_check_is_multiple_choice_in_one_assignment_only(course_factory):
    from gradekit.pages.report.data import layout

    course = _course(course_factory)
    assert course.cli("new", "concepts_copy", "--from", ASSIGNMENT) == 0
    course.write_settings("concepts_copy", "")   # the copy does not say its test_concepts is multiple choice
    loaded = course.course
    choice = {a: {c.grade_id for c in layout(loaded, a) if c.choice} for a in (ASSIGNMENT, "concepts_copy")}
    assert choice == {ASSIGNMENT: {"test_concepts"}, "concepts_copy": set()}
    why = {a: loaded.settings_of(a).visibility().hidden["test_concepts"] for a in (ASSIGNMENT, "concepts_copy")}
    assert why == {ASSIGNMENT: settings.NAMED, "concepts_copy": settings.VALUE}   # hidden either way


KEYS_OF = {section: ", ".join(k.name for k in settings.KEYS if k.section == section) for section in settings.SECTIONS}


@pytest.mark.parametrize("text, says", [
    ('[limits]\nhidden_until_due = ["quiz"]\n',
     f"'hidden_until_due' belongs in [serve], not [limits] (the keys of [limits]: {KEYS_OF['limits']})"),
    ("[serve]\nhiden_until_due = []\n", f"unknown key 'hiden_until_due' in [serve] (the keys of [serve]: {KEYS_OF['serve']})"),
    ('hidden_until_due = ["quiz"]\n', "unknown section or key 'hidden_until_due' at the top (hidden_until_due goes in [serve])"),
    ("[live]\nattempts = 3\n", "unknown section or key 'live' at the top; the sections are [grading], [serve], [limits]"),
    ('[serve]\nstaff_group = "ta"\n', "'staff_group' is the course's setting, not an assignment's: set c.Gradekit.staff_group"),
    ('[grading]\nchoice_cells = ["test_concept"]\n', "choice_cells: 'test_concept' is not a test cell of self_attention"),
    ("[serve]\nattempts = -1\n", "[serve] attempts must be a whole number of 0 or more, not -1"),
    ('[serve]\ncounts = "first"\n', "counts must be one of 'last', 'best', not 'first'"),
    ("[serve\n", "not TOML"),
])
def test_a_wrong_or_misplaced_key_is_one_line_naming_the_file_the_key_and_the_keys(course_factory, capsys, text, says):
    course = _course(course_factory, **{ASSIGNMENT: text})
    assert course.cli("generate", ASSIGNMENT) == 3
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in captured.err, err
    assert f"source/{ASSIGNMENT}/assignment.toml: " in err and says in err, err
    assert not (course.root / "release").exists()   # a broken course writes nothing


@pytest.mark.parametrize("line, says", [
    ('c.Gradekit.hidden_until_due = ["quiz"]',
     "c.Gradekit.hidden_until_due is an assignment's setting now: put hidden_until_due in [serve] of "
     "source/<assignment>/assignment.toml"),
    ('c.Gradekit.choice_cells = ["test_concepts"]', "put choice_cells in [grading]"),
    ('c.Gradekit.assignments = {"self_attention": {"call_timeout": 30}}', "put the limits in [limits]"),
    ("c.Gradekit.atempts = 3", "c.Gradekit.atempts is not a setting (c.Gradekit's settings: "),
    ('c.Gradekit.counts = "first"', "c.Gradekit.counts must be one of 'last', 'best', not 'first'"),
])
def test_an_assignments_key_set_for_the_course_is_one_line(course_factory, capsys, line, says):
    course = _course(course_factory)
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f"\n{line}\n")
    assert course.cli("generate", ASSIGNMENT) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nbgrader_config.py: " in err and says in err, err


def test_writing_an_assignment_names_every_setting():
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[1] / "docs/guides/writing-an-assignment.md").read_text(encoding="utf-8")
    assert [k.name for k in settings.KEYS if f"`{k.name}`" not in guide] == []
    assert all(f"`[{section}]`" in guide for section in settings.SECTIONS)


@pytest.mark.parametrize(
    "hidden, before_due, names_it",
    [
        (frozenset({"test_tq1"}), "full", False),  # a hidden part: the best whole score would tell how it did
        (frozenset(), "received", False),  # no score shows before the due date
        (frozenset(), "full", True),
        (frozenset(), "score", True),
    ],
)
def test_which_attempt_counts_is_said_before_the_due_date_only_where_it_tells_nothing_hidden(
    hidden, before_due, names_it
):
    import datetime as dt

    from gradekit.service.policy import Policy

    policy = Policy(attempts=3, counts="best", before_due=before_due, hidden=hidden)
    now = dt.datetime(2026, 12, 1, 12, 0)
    graded = [(4, 20.0), (5, 17.0)]  # the first attempt's whole score is the best
    before = policy.disclosure(now + dt.timedelta(days=1), now, 2, 4, graded)
    after = policy.disclosure(now - dt.timedelta(days=1), now, 2, 4, graded)
    assert after.counting == "your best attempt counts: attempt 1 (20 points)"
    if names_it:
        assert before.counting == after.counting
    else:
        assert before.counting == "your best attempt counts: which one is said after the due date"
        assert "20" not in before.counting and "attempt 1" not in before.counting
