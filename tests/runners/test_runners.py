"""The streaming runner interface: submit one submission, take its outcome, keep the processes warm.

``autograde`` submits a class and closes the runner; ``gradekit check`` a simulated
class with its own stages; the live service one submission at a time as each
arrives. These tests drive the interface itself, on the local pool and in-process.
"""

from __future__ import annotations

import json

import pytest
from conftest import ASSIGNMENT, with_solutions

from gradekit.course import Course
from gradekit.grading.options import Options
from gradekit.grading.stages import DEFAULT_STAGES
from gradekit.runners.base import Job
from gradekit.runners.local import DIED_TWICE, InProcess, LocalPool

pytestmark = pytest.mark.e2e

WRONG_AXIS = "def softmax(x, axis=-1):\n    e = np.exp(x - np.max(x, axis=0, keepdims=True))\n    return e / e.sum(axis=0, keepdims=True)\n"
CRASH = "\ncrash_the_grader = True\n"


@pytest.fixture
def graded_course(course_factory):
    course = course_factory(students=("s1", "s2", "s3", "s4"))
    course.generate()
    for student in ("s1", "s2", "s3", "s4"):
        course.submit(student, course.answer_key(student))
    return course


def test_a_pool_takes_submissions_one_at_a_time_and_stays_warm(graded_course):
    course = Course.load(graded_course.root)
    with LocalPool(course, ASSIGNMENT, Options(), jobs=2) as runner:
        runner.submit(Job("s1"))
        assert runner.pending == 1
        assert runner.next_outcome(timeout=0) is None      # a cold pool has not graded anything yet
        first = runner.next_outcome()
        assert first.job == Job("s1") and first.result.score == first.result.possible == 20
        assert runner.pending == 0 and runner.next_outcome() is None
        # later, as a student resubmits: the same pool, its graders collected, its sandboxes warm
        graded_course.submit("s2", with_solutions(graded_course.answer_key("s2"), {"softmax": WRONG_AXIS}))
        runner.submit(Job("s2"))
        second = runner.next_outcome()
    assert second.result.student == "s2" and second.result.score < 20
    assert first.result.startup_seconds > 0 and second.result.startup_seconds == 0


def test_a_job_can_name_another_folder_output_and_language(graded_course, tmp_path):
    course = Course.load(graded_course.root)
    out = tmp_path / "out"
    job = Job("s3", folder=str(graded_course.root / "submitted" / "s1" / ASSIGNMENT), out_dir=str(out), language="zh")
    with InProcess(course, ASSIGNMENT, Options()) as runner:
        runner.submit(job)
        runner.submit(Job("s3"))
        assert runner.pending == 2
        on_another_variant, own = runner.next_outcome(), runner.next_outcome()
    # s1's answers are general code: on s3's variant (locked cells restored from s3's release) they are right too
    assert on_another_variant.job == job and on_another_variant.result.language == "zh"
    assert on_another_variant.result.score == 20
    assert json.loads((out / "results.json").read_text())["student"] == "s3"
    assert own.result.language == "en" and (graded_course.root / "autograded" / "s3" / ASSIGNMENT).is_dir()


def test_a_grading_process_settles_its_heap_before_its_first_submission(graded_course):
    """What a grading process holds before it grades (the grading code, the pipeline) is moved out of the
    cyclic collector's reach: a full collection then walks only what the submissions made."""
    import gc

    course = Course.load(graded_course.root)
    gc.unfreeze()
    try:
        with InProcess(course, ASSIGNMENT, Options()) as runner:
            runner.submit(Job("s1"))
            assert runner.next_outcome().result.score == 20
            frozen = gc.get_freeze_count()
        assert frozen > 10_000  # numpy, pytest, the graders: not one object of them is walked again
        assert gc.get_freeze_count() == 0  # closed: a process that goes on may collect them again
    finally:
        gc.unfreeze()


def test_observations_travel_beside_the_result(graded_course):
    """What watching stages see (gradekit check's) comes back in Outcome.observed, never in the result."""
    course = Course.load(graded_course.root)
    options = Options(stages=(*DEFAULT_STAGES, "gradekit.qa.leaks.LeakScan", "gradekit.qa.blind.BlindSpots"))
    with InProcess(course, ASSIGNMENT, options) as runner:
        runner.submit(Job("s1", tags=("audit",)))
        runner.submit(Job("s2"))
        audited, plain = runner.next_outcome(), runner.next_outcome()
    assert set(audited.observed) == {"self_attention"} and {"leaks", "blind"} <= set(audited.observed["self_attention"])
    assert "blind" not in plain.observed["self_attention"]                  # only an audited job is audited
    assert "leaks" not in json.dumps(audited.result.to_dict())


def test_after_a_worker_dies_the_pool_goes_on(graded_course):
    """The job that killed its worker is graded once more alone, gets its zero; what is submitted
    afterwards goes to a fresh pool."""
    graders = graded_course.root / "autograder" / ASSIGNMENT / "test_softmax.py"
    graders.write_text(graders.read_text() + '''

def test_zz_stand_in_for_a_crash(student):
    if student["crash_the_grader"]:
        import os
        os._exit(3)
''')
    key = graded_course.answer_key("s4")
    softmax = next(c.source for c in key.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax")
    graded_course.submit("s4", with_solutions(key, {"softmax": softmax + CRASH}))
    course = Course.load(graded_course.root)
    with LocalPool(course, ASSIGNMENT, Options(), jobs=2) as runner:
        runner.submit(Job("s4"))
        crashed = runner.next_outcome()
        runner.submit(Job("s1"))
        after = runner.next_outcome()
    assert crashed.result.error == DIED_TWICE and crashed.result.score == 0
    assert after.result.error is None and after.result.score == 20


def test_a_pool_grades_with_the_secret_its_coordinator_has_now(course_factory, monkeypatch):
    """The fork server (one per process) keeps the environment it started with; a later pool with
    another $GRADEKIT_SECRET (gradekit check's simulated course, run in process) must grade with
    that secret: with the fork server's, the course refuses it (its notebooks were generated with
    the other one) and every student would get a failure instead of their grade."""
    first = course_factory(students=("s1",))
    first.generate()
    first.submit("s1", first.answer_key("s1"))
    with LocalPool(Course.load(first.root), ASSIGNMENT, Options(), jobs=1) as runner:  # the fork server starts
        runner.submit(Job("s1"))
        result = runner.next_outcome().result
    assert result.error is None and result.score == result.possible == 20
    monkeypatch.setenv("GRADEKIT_SECRET", "another secret, set after the fork server started")
    second = course_factory(students=("s2",), name="second")
    second.generate()
    second.submit("s2", second.answer_key("s2"))
    with LocalPool(Course.load(second.root), ASSIGNMENT, Options(), jobs=1) as runner:
        runner.submit(Job("s2"))
        result = runner.next_outcome().result
    assert result.error is None, result.error
    assert result.score == result.possible == 20, [(c.grade_id, c.score) for nb in result.notebooks for c in nb.cells]
