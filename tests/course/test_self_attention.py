"""The self-attention course itself, graded end to end over many students (variants).

One course is graded once for the module (``gradekit autograde --jobs 2``):

* every student's answer key           -> full marks on every cell
* every student's untouched release    -> zero on every cell, and no crash
* the course's known implementations (autograder/self_attention/mistakes/ and
  correct/, see gradekit.qa.qaset), each on VARIANTS students: a classic mistake
  loses points on the test cells following its sections' solution cells (or
  those of its ``# breaks:`` line) and nowhere else; its feedback names it
  (its ``# names:`` phrase), and no finding anywhere names something else; a
  correct one keeps full marks and gets no finding.

To keep this affordable on two cores, mistakes in different exercises share a
submission: exercises are graded independently (each grader swaps the
student's other functions for the reference ones), so one submission can
carry a mistake in each of the six exercises. 54 mistakes on 10 variants are
150 submissions instead of 540.

A test cell belongs to the solution cell that precedes it in the notebook
(``test_self_attention_permutation`` to ``self_attention``,
``test_kv_cache_decode`` to ``kv_cache``).
"""

from __future__ import annotations

import pytest

from conftest import (ASSIGNMENT, NOTEBOOK, STUDENTS, CourseDir, exercise_tests, known_implementations,
                      with_solutions)
from gradekit.release.generate import write_answer_key
from gradekit.grading.diagnosis import notes

pytestmark = pytest.mark.e2e  # the whole pipeline: `pytest -m "not e2e"` leaves it out

VARIANTS = 10


def _exercise_cells() -> set[str]:
    """The solution cells of the exercise notebook (this module's course has no quiz notebook)."""
    import json

    from conftest import REPO

    nb = json.loads((REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())
    return {c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"]
            if c["metadata"].get("nbgrader", {}).get("solution")}


# the QA set's files for the exercise notebook (gradekit check grades the quiz's too)
KNOWN = [k for k in known_implementations() if set(k.sources) <= _exercise_cells()]
MISTAKES = [k for k in KNOWN if not k.correct]
CORRECT = [k for k in KNOWN if k.correct]
NAMING_RATE = 0.95


def _key_id(student: str) -> str:
    return f"key-{student}"


def _release_id(student: str) -> str:
    return f"blank-{student}"


def _groups(variant: int) -> list[list]:
    """The mistakes packed into submissions, no two touching the same solution cell; the packing
    rotates with the variant so that a mistake meets different neighbours."""
    order = MISTAKES[variant % len(MISTAKES):] + MISTAKES[:variant % len(MISTAKES)]
    groups: list[list] = []
    for known in order:
        for group in groups:
            if not any(set(known.sources) & set(other.sources) for other in group):
                group.append(known)
                break
        else:
            groups.append([known])
    return groups


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    plan: dict[str, list] = {}   # student -> the known implementations in their submission
    for v in range(VARIANTS):
        for i, group in enumerate(_groups(v)):
            plan[f"mistakes-{v}-{i}"] = group
        for known in CORRECT:
            plan[f"correct-{known.name}-{v}"] = [known]
    everyone = [_key_id(s) for s in STUDENTS] + [_release_id(s) for s in STUDENTS] + list(plan)
    course = CourseDir.create(tmp_path_factory.mktemp("course") / "course", everyone)
    c = course.course
    course.generate(*[_release_id(s) for s in STUDENTS])

    def key(student):
        import nbformat

        out = course.root / "keys" / student
        write_answer_key(c, ASSIGNMENT, student, out)
        return nbformat.read(str(out / f"{NOTEBOOK}.ipynb"), as_version=4)

    for s in STUDENTS:
        course.submit(_key_id(s), key(_key_id(s)))
        course.submit(_release_id(s), course.release(_release_id(s)).copy())
    for student, group in plan.items():
        sources = {cell: code for known in group for cell, code in known.sources.items()}
        course.submit(student, with_solutions(key(student), sources))
    assert course.autograde(jobs=2) == 0
    results = course.results(everyone)
    assert set(results) == set(everyone)
    owners = exercise_tests(course.release(_release_id(STUDENTS[0])))
    return course, results, plan, owners


def _lost(result) -> dict[str, float]:
    return {c.grade_id: c.points - (c.score or 0) for nb in result.notebooks for c in nb.cells
            if (c.score or 0) < c.points - 1e-9}


def _failed_messages(result, grade_id) -> list[str]:
    return [k.message for k in result.cell(grade_id).checks if not k.passed]


def _breaks(known, owners) -> set[str]:
    """The test cells a known implementation may lose points on."""
    return set(known.breaks) or {t for cell in known.sources for t in owners[cell]}


def _verdicts(graded, known) -> list[tuple[str, bool, list[str]]]:
    """For each student whose submission holds ``known``: (student, named, wrong names).

    Named: its phrase is in its cells' diagnosis or in one of their failed checks' messages.
    Wrong: a finding in its cells that does not contain its phrase (one of several alternatives
    may), or a finding in a cell no mistake of the submission may break.
    """
    _, results, plan, owners = graded
    out = []
    for student, group in plan.items():
        if known not in group:
            continue
        result = results[student]
        mine = _breaks(known, owners)
        others = set().union(*(_breaks(k, owners) for k in group if k is not known))
        texts = [t for gid in mine for t in notes(result.cell(gid)) + _failed_messages(result, gid)]
        wrong = [f"{gid}: {f.mistakes}" for nb in result.notebooks for cell in nb.cells for f in cell.findings
                 for gid in [cell.grade_id]
                 if (gid in mine and not any(known.names in r for r in f.mistakes)) or
                 (gid not in mine and gid not in others)]
        out.append((student, any(known.names in t for t in texts), wrong))
    return out


@pytest.mark.parametrize("student", STUDENTS)
def test_answer_key_gets_full_marks(graded, student):
    _, results, _, _ = graded
    result = results[_key_id(student)]
    assert result.error is None
    assert result.possible == 20
    assert _lost(result) == {}, {g: _failed_messages(result, g) for g in _lost(result)}
    assert result.score == 20
    nb = result.notebooks[0]
    assert nb.error is None and nb.runs and all(run.ok for run in nb.runs), nb.runs
    assert all(c.checks and all(k.passed for k in c.checks) for c in nb.cells)


def test_students_have_different_variants(graded):
    course, _, _, _ = graded
    setups = {course.release(_release_id(s)).cells[1].source for s in STUDENTS}
    assert len(setups) == len(STUDENTS)


@pytest.mark.parametrize("student", STUDENTS)
def test_untouched_release_gets_zero(graded, student):
    _, results, _, _ = graded
    result = results[_release_id(student)]
    assert result.error is None and result.notebooks[0].error is None
    assert result.possible == 20 and result.score == 0
    cells = result.notebooks[0].cells
    assert len(cells) == 9
    for cell in cells:
        assert cell.score == 0 and cell.checks, cell.grade_id
        assert not any(k.passed for k in cell.checks), cell.grade_id
        assert not cell.findings, (cell.grade_id, cell.findings)  # nothing to diagnose in no code
        # the feedback says why: not implemented, not "the grader crashed"
        for check in cell.checks:
            assert "could not check" not in check.message, (cell.grade_id, check.message)
    messages = " ".join(k.message for c in cells for k in c.checks)
    assert "not implemented" in messages
    runs = {r.cell_id: r for r in result.notebooks[0].runs}
    assert runs["setup"].ok


def test_every_exercise_has_test_cells(graded):
    _, _, _, owners = graded
    assert set(owners) == {"project_qkv", "scaled_scores", "softmax", "weighted_sum", "self_attention", "kv_cache"}
    assert all(owners.values())


def test_the_known_set(graded):
    _, _, plan, owners = graded
    assert len(MISTAKES) >= 30 and len(CORRECT) >= 2
    tests = {t for ts in owners.values() for t in ts}
    for known in KNOWN:
        assert set(known.sources) <= set(owners), (known.name, set(known.sources) - set(owners))
        assert set(known.breaks) <= tests, (known.name, known.breaks)
    # every mistake is graded on VARIANTS students of its own
    for known in MISTAKES:
        assert sum(known in group for group in plan.values()) == VARIANTS, known.name


@pytest.mark.parametrize("known", MISTAKES, ids=[k.name for k in MISTAKES])
def test_mistake_loses_points_where_it_should_and_is_never_misnamed(graded, known):
    _, results, plan, owners = graded
    mine = _breaks(known, owners)
    for student, group in plan.items():
        if known not in group:
            continue
        result = results[student]
        assert result.error is None and result.notebooks[0].error is None, (student, result.error)
        assert result.possible == 20
        lost = set(_lost(result))
        allowed = set().union(*(_breaks(k, owners) for k in group))
        assert lost <= allowed, f"{student}: lost points outside {allowed}: " + \
            str({g: _failed_messages(result, g) for g in lost - allowed})
        assert lost & mine, f"{student}: {known.name} went unnoticed (score {result.score:g}/20)"
        for gid in lost & mine:
            assert all(_failed_messages(result, gid)), (student, gid)  # every failure says why
    for student, named, wrong in _verdicts(graded, known):
        assert not wrong, f"{student}: {known.name} ({known.names!r}) was given a wrong name: {wrong}"
    # a name on most of its variants (the class-wide rate is checked below)
    named = [student for student, is_named, _ in _verdicts(graded, known) if is_named]
    assert len(named) > VARIANTS // 2, f"{known.name}: {known.names!r} named for {len(named)} of {VARIANTS}"


def test_one_mistake_in_self_attention_costs_its_points_once(graded):
    """The softmax taken along the wrong axis inside self_attention is wrong numbers -- test
    self_attention's -- but breaks none of the laws test_self_attention_permutation checks:
    those keep their points (they asserted "each row sums to 1" too, and so took them again)."""
    _, results, plan, _ = graded
    known = next(k for k in MISTAKES if k.name == "attention_wrong_axis")
    students = [s for s, group in plan.items() if known in group]
    assert students
    for student in students:
        lost = _lost(results[student])
        assert "test_self_attention" in lost, (student, lost)
        assert "test_self_attention_permutation" not in lost, (student, lost)


def test_mistakes_are_named_for_95_percent(graded):
    verdicts = [v for known in MISTAKES for v in _verdicts(graded, known)]
    assert len(verdicts) == len(MISTAKES) * VARIANTS
    rate = sum(named for _, named, _ in verdicts) / len(verdicts)
    assert rate >= NAMING_RATE, f"named {rate:.1%} of {len(verdicts)}"


@pytest.mark.parametrize("known", CORRECT, ids=[k.name for k in CORRECT])
def test_correct_alternative_keeps_full_marks(graded, known):
    _, results, plan, _ = graded
    for student, group in plan.items():
        if group == [known]:
            result = results[student]
            assert result.error is None and result.score == 20, \
                (student, {g: _failed_messages(result, g) for g in _lost(result)})
            assert not [f for nb in result.notebooks for c in nb.cells for f in c.findings], student


METHOD_RAISES = """
class KVCache:
    def __init__(self):
        self._k, self._v = [], []

    def append(self, k, v):
        self._k.append(np.asarray(k, dtype=float))
        self._v.append(np.asarray(v, dtype=float))

    @property
    def keys(self):
        raise ValueError("boom-in-keys")

    @property
    def values(self):
        return np.array(self._v)

    def __len__(self):
        return len(self._k)


def decode_step(x_t, W_q, W_k, W_v, cache):
    raise ValueError("boom-in-decode")
"""


def test_error_inside_a_student_method_is_explained(shared_course):
    student = STUDENTS[4]
    shared_course.submit(student, with_solutions(shared_course.answer_key(student), {"kv_cache": METHOD_RAISES}))
    result = shared_course.grade(student)
    decode = [k.message for k in result.cell("test_kv_cache_decode").checks if not k.passed]
    assert decode and all("boom-in-decode" in m for m in decode)  # a top-level function: explained
    failed = [k.message for k in result.cell("test_kv_cache").checks if not k.passed]
    assert failed
    for message in failed:
        assert "could not check" not in message and "boom-in-keys" in message, message
