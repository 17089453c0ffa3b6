"""gradekit.grading.pipeline and its stages: what a stage gets, courses' own stages, observers."""

from __future__ import annotations

import textwrap

import pytest

from gradekit.errors import GraderError
from gradekit.graders import observe
from gradekit.grading.pipeline import load_stage
from gradekit.grading.stages import DEFAULT_STAGES, Stage, StageContext

STAGE = textwrap.dedent('''
    """A course's own stage: a late-night note, and what it was given."""
    from gradekit.grading.stages import Stage

    class Tag(Stage):
        def __call__(self, job):
            job.notes.append(job.say(f"tagged by {type(self.context).__name__}: {sorted(vars(self.context))}"))
''')


def test_a_course_stage_gets_a_narrow_context_not_the_pipeline(course, tmp_path, monkeypatch):
    (tmp_path / "coursestages.py").write_text(STAGE)
    monkeypatch.syspath_prepend(str(tmp_path))   # the course's spawned grading process starts with this sys.path
    course.configure(stages=[*DEFAULT_STAGES[:4], "coursestages.Tag", DEFAULT_STAGES[4]])   # before Annotate
    course.generate("alice")
    course.submit("alice", course.answer_key("alice"))
    result = course.grade("alice")
    assert result.score == 20
    graded = (course.root / "autograded" / "alice" / "self_attention" / "self_attention.ipynb").read_text()
    # the note reached the graded notebook's metadata: the stage saw a StageContext with these fields
    assert "tagged by StageContext: ['limits', 'note_grader_errors', 'sandbox', 'settings', 'suite']" in graded
    assert sorted(f.name for f in StageContext.__dataclass_fields__.values()) == \
        ["limits", "note_grader_errors", "sandbox", "settings", "suite"]
    assert "pipeline" not in vars(Stage)


@pytest.mark.parametrize("spec, said", [("nope.Missing", "does not load"), ("gradekit.errors.GradekitError",
                                                                            "is not a gradekit.grading.stages.Stage")])
def test_a_stage_that_does_not_load_is_one_line(spec, said):
    with pytest.raises(GraderError) as info:
        load_stage(spec)
    assert said in str(info.value) and "\n" not in str(info.value)


def test_observers_hear_only_inside_their_block():
    class Ear:
        audits = True

        def __init__(self):
            self.heard, self.matches = [], []

        def reference_returned(self, value):
            self.heard.append(value)

        def right_answer_matches(self, mistake, what):
            self.matches.append((mistake, what))

    ear = Ear()
    assert not observe.auditing() and not observe.recording_references()
    observe.reference_returned(1.0)   # nobody listens: nothing happens
    with observe.observing([ear, object()]):
        assert observe.auditing() and observe.recording_references()
        observe.reference_returned(2.0)
        observe.right_answer_matches("transposed", "a symmetric input")
    observe.reference_returned(3.0)
    assert ear.heard == [2.0] and ear.matches == [("transposed", "a symmetric input")]


def test_a_passing_check_is_audited_only_when_asked():
    """check.array works out its mistakes= on a right answer only for an auditing observer (their
    functions may call into the student's code)."""
    from gradekit.graders import check

    calls = []

    def mistakes():
        calls.append(1)
        return {"transposed": [[1.0, 2.0], [2.0, 1.0]]}

    right = [[1.0, 2.0], [2.0, 1.0]]
    check.array(right, right, what="a symmetric matrix", mistakes=mistakes)
    assert calls == []

    class Audit:
        audits = True
        found: list = []

        def right_answer_matches(self, mistake, what):
            self.found.append((mistake, what))

    audit = Audit()
    with observe.observing([audit]):
        check.array(right, right, what="a symmetric matrix", mistakes=mistakes)
    assert calls == [1] and audit.found == [("transposed", "a symmetric matrix")]


NAMED_CASES = textwrap.dedent('''

    @pytest.mark.parametrize(("case", "topic"), [("rows", "each row sums to one"), ("big", "no overflow")],
                             ids=["rows", "big"])
    def test_named_case(student, case, topic):
        """softmax law: {topic}"""


    @pytest.mark.parametrize("case", ["a", "b"])
    def test_numbered_case(student, case):
        """softmax case"""
''')


def test_a_parametrized_check_is_named_by_its_docstring_s_placeholders(course):
    """A docstring's placeholder that names a parameter ("softmax law: {topic}") gives each case its own
    human name; a docstring without one keeps the case's id in brackets."""
    grader = course.root / "autograder" / "self_attention" / "test_softmax.py"
    text = grader.read_text()
    grader.write_text(("import pytest\n" if "import pytest" not in text else "") + text + NAMED_CASES)
    course.generate("alice")
    course.submit("alice", course.answer_key("alice"))
    result = course.grade("alice")
    names = [k.name for nb in result.notebooks for c in nb.cells if c.grade_id == "test_softmax" for k in c.checks]
    assert {"softmax law: each row sums to one", "softmax law: no overflow",
            "softmax case (a)", "softmax case (b)"} <= set(names), names
