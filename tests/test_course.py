"""The self-attention course itself, graded end to end over several students (seeds).

One course is graded once for the module (``gradekit autograde --jobs 2``):

* every student's answer key           -> full marks on every cell
* every student's untouched release    -> zero on every cell, and no crash
* each file of tests/course/implementations/ on three students: a buggy one
  loses points on the test cells of the exercise(s) named in its
  ``# breaks:`` line and nowhere else; a correct one keeps full marks.

A test cell belongs to the solution cell that precedes it in the notebook
(``test_self_attention_permutation`` to ``self_attention``,
``test_kv_cache_decode`` to ``kv_cache``).
"""

from __future__ import annotations

import pytest

from conftest import (ASSIGNMENT, NOTEBOOK, STUDENTS, CourseDir, exercise_tests, implementation_files,
                      parse_implementation, named_mistake, with_solutions)
from gradekit.release import answer_key

pytestmark = pytest.mark.e2e  # the whole pipeline: `pytest -m "not e2e"` leaves it out

SEEDS_PER_IMPLEMENTATION = 3
IMPLEMENTATIONS = implementation_files()


def _impl_students(index: int, stem: str) -> list[str]:
    return [f"{stem}-{k}" for k in range(SEEDS_PER_IMPLEMENTATION)]


def _key_id(student: str) -> str:
    return f"key-{student}"


def _release_id(student: str) -> str:
    return f"blank-{student}"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    impl_students = {p.stem: _impl_students(i, p.stem) for i, p in enumerate(IMPLEMENTATIONS)}
    everyone = ([_key_id(s) for s in STUDENTS] + [_release_id(s) for s in STUDENTS]
                + [s for ids in impl_students.values() for s in ids])
    course = CourseDir.create(tmp_path_factory.mktemp("course") / "course", everyone)
    c = course.course
    course.generate(*[_release_id(s) for s in STUDENTS])

    def key(student):
        out = course.root / "keys" / student
        answer_key(c, ASSIGNMENT, student, out)
        import nbformat

        return nbformat.read(str(out / f"{NOTEBOOK}.ipynb"), as_version=4)

    for s in STUDENTS:
        course.submit(_key_id(s), key(_key_id(s)))
        course.submit(_release_id(s), course.release(_release_id(s)).copy())
    for path in IMPLEMENTATIONS:
        _, sources = parse_implementation(path)
        for student in impl_students[path.stem]:
            course.submit(student, with_solutions(key(student), sources))
    assert course.autograde(jobs=2) == 0
    results = course.results(everyone)
    assert set(results) == set(everyone)
    owners = exercise_tests(course.release(_release_id(STUDENTS[0])))
    return course, results, impl_students, owners


def _lost(result) -> dict[str, float]:
    return {c.grade_id: c.points - (c.score or 0) for nb in result.notebooks for c in nb.cells
            if (c.score or 0) < c.points - 1e-9}


def _failed_messages(result, grade_id) -> list[str]:
    return [k.message for k in result.cell(grade_id).checks if not k.passed]


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


def test_implementations_exist():
    assert len(IMPLEMENTATIONS) >= 10
    breaks = [parse_implementation(p)[0] for p in IMPLEMENTATIONS]
    assert any(b == [] for b in breaks) and any(b for b in breaks)


@pytest.mark.parametrize("path", IMPLEMENTATIONS, ids=[p.stem for p in IMPLEMENTATIONS])
def test_implementation(graded, path):
    course, results, impl_students, owners = graded
    breaks, sources = parse_implementation(path)
    unknown = set(breaks) - set(owners)
    assert not unknown, f"# breaks: names no exercise {unknown}"
    expected = {t for b in breaks for t in owners[b]}
    lost_anywhere: set[str] = set()
    for student in impl_students[path.stem]:
        result = results[student]
        assert result.error is None and result.notebooks[0].error is None, (student, result.error)
        assert result.possible == 20
        lost = _lost(result)
        lost_anywhere |= set(lost)
        stray = set(lost) - expected
        assert not stray, (f"{student}: lost points outside {breaks or 'nothing'}: "
                           f"{ {g: _failed_messages(result, g) for g in stray} }")
        if breaks:
            for exercise in breaks:
                assert set(lost) & set(owners[exercise]), \
                    f"{student}: the bug in {exercise} went unnoticed (score {result.score:g}/20)"
            for gid in lost:
                assert all(_failed_messages(result, gid)), (student, gid)  # every failure says why
        else:
            assert result.score == 20
    if breaks:
        # over all seeds, every test cell of the broken exercise(s) catches it at least once
        # (or the implementation is specific to one of them); never a cell elsewhere
        assert lost_anywhere <= expected
    named = named_mistake(path)
    if named:  # the feedback names the classic mistake, for every student
        for student in impl_students[path.stem]:
            messages = [m for gid in _lost(results[student]) for m in _failed_messages(results[student], gid)]
            assert any(named in m for m in messages), (student, named, messages[:4])


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
