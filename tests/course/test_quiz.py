"""The thought-question quiz (quiz.ipynb): per-student numbers, graded by content, partial credit.

* answer keys get full marks on every automatic cell, for many students;
* another student's answer key loses points on every one of tq1 ... tq5;
* the untouched release scores zero and grades without errors;
* multiple-choice options are shuffled across students, and graded by content;
* a wrong answer that follows a known wrong route is named in one line;
* the free-text answers wait for a person: graded through nbgrader's API as
  formgrader does, the grade shows in ``nbgrader export``.
"""

from __future__ import annotations

import csv
import re
import subprocess

import nbformat
import pytest
from gradekit.grading.diagnosis import notes as notes_of

from conftest import ASSIGNMENT, SECRET, VENV_BIN, CourseDir

pytestmark = pytest.mark.e2e  # the whole pipeline: `pytest -m "not e2e"` leaves it out

QUIZ = "quiz"
STUDENTS = tuple(f"q{i:02d}" for i in range(12))
QUESTIONS = ("test_tq1", "test_tq2", "test_tq3", "test_tq4", "test_tq5")
MANUAL = ("tq1_explain", "tq5_explain")


@pytest.fixture(scope="module")
def quiz_course(tmp_path_factory):
    import os

    os.environ["GRADEKIT_SECRET"] = SECRET
    course = CourseDir.create(tmp_path_factory.mktemp("quiz") / "course", STUDENTS, quiz=True)
    course.generate()
    return course


def key(course: CourseDir, student: str, notebook: str = QUIZ) -> nbformat.NotebookNode:
    out = course.root / "keys" / student
    if not (out / f"{notebook}.ipynb").exists():
        assert course.cli("answer-key", ASSIGNMENT, "--student", student, "--out", str(out)) == 0
    return nbformat.read(str(out / f"{notebook}.ipynb"), as_version=4)


def submit_quiz(course: CourseDir, student: str, nb) -> None:
    folder = course.root / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(folder / f"{QUIZ}.ipynb"))
    nbformat.write(key(course, student, "self_attention"), str(folder / "self_attention.ipynb"))


def quiz_cells(result):
    nb = next(n for n in result.notebooks if n.name == QUIZ)
    return {c.grade_id: c for c in nb.cells}


def append_to(nb, grade_id: str, answers: dict) -> nbformat.NotebookNode:
    """Set variables at the end of one answer cell (the later assignment wins)."""
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            cell.source += "\n" + "\n".join(f"{k} = {v!r}" for k, v in answers.items()) + "\n"
    return nb


def params(course: CourseDir, student: str) -> dict:
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    return build_variant(course.course, AssignmentSource.load(course.course, ASSIGNMENT), student, SECRET.encode()).params


def test_answer_keys_full_marks_and_manual_cells_wait(quiz_course):
    for student in STUDENTS:
        submit_quiz(quiz_course, student, key(quiz_course, student))
    for student in STUDENTS:
        cells = quiz_cells(quiz_course.grade(student))
        for gid in QUESTIONS + ("test_concepts",):
            assert cells[gid].score == cells[gid].points > 0, (student, gid, cells[gid].checks)
        for gid in MANUAL:
            assert cells[gid].manual and cells[gid].score is None


def test_numbers_differ_and_a_neighbours_key_loses_on_every_question(quiz_course):
    victim, copier = STUDENTS[0], STUDENTS[1]
    mine, theirs = params(quiz_course, copier), params(quiz_course, victim)
    assert mine["key"] != theirs["key"]
    submit_quiz(quiz_course, copier, key(quiz_course, victim))
    cells = quiz_cells(quiz_course.grade(copier))
    for gid in QUESTIONS:
        if any(mine["key"][k] != theirs["key"][k] for k in mine["key"] if k.startswith(gid[5:])):
            assert cells[gid].score < cells[gid].points, (gid, cells[gid].checks)


def test_untouched_release_scores_zero_without_errors(quiz_course):
    student = STUDENTS[2]
    release = nbformat.read(str(quiz_course.root / "release" / student / ASSIGNMENT / f"{QUIZ}.ipynb"),
                            as_version=4)
    submit_quiz(quiz_course, student, release)
    result = quiz_course.grade(student)
    assert result.error is None
    cells = quiz_cells(result)
    assert all(cells[g].score == 0 for g in QUESTIONS + ("test_concepts",))
    messages = [k.message for g in QUESTIONS + ("test_concepts",) for k in cells[g].checks]
    assert messages and all("no answer given" in m for m in messages), messages
    # an answer left as None is not a function's missing `return`
    assert not any("function" in m or "return" in m for m in messages), messages
    assert not any(cells[g].findings for g in QUESTIONS + ("test_concepts",))


def test_options_are_shuffled_and_graded_by_content(quiz_course):
    orders = {tuple(tuple(q["options"]) for q in params(quiz_course, s)["mc"]) for s in STUDENTS}
    assert len(orders) > len(STUDENTS) // 2
    answers = {params(quiz_course, s)["mc"][0]["answer"] for s in STUDENTS}
    assert len(answers) > 1, "the right letter must vary across students"
    # the letter that is right for a neighbour is wrong here, when it points at other content
    student, neighbour = STUDENTS[3], STUDENTS[4]
    mine = params(quiz_course, student)["mc"]
    theirs = params(quiz_course, neighbour)["mc"]
    copied = {q["id"]: t["answer"] for q, t in zip(mine, theirs)}
    submit_quiz(quiz_course, student, append_to(key(quiz_course, student), "concepts", copied))
    checks = quiz_cells(quiz_course.grade(student))["test_concepts"].checks
    expected_right = sum(1 for q, t in zip(mine, theirs)
                         if q["options"][ord(t["answer"]) - 65] == q["options"][ord(q["answer"]) - 65])
    assert sum(k.passed for k in checks) == expected_right
    for check in checks:
        if not check.passed:
            assert re.search(r": you chose [A-D] -- ", check.message), check.message   # its misconception, not "none"
            assert "none of the options" not in check.message


def test_known_wrong_routes_are_named(quiz_course):
    student = STUDENTS[5]
    p = params(quiz_course, student)
    ratio = p["q5_n2"] / p["q5_n1"]
    nb = key(quiz_course, student)
    append_to(nb, "tq1", {"tq1_weights": [0.670, 0.330]})          # the lecture's weights
    append_to(nb, "tq2", {"tq2_factor": p["q2_b"] / p["q2_a"]})     # the variance ratio
    append_to(nb, "tq5", {"tq5_factor": ratio, "tq5_mib": 4 * p["q5_n"] ** 2 / 2 ** 20})  # n2/n1; FP32
    submit_quiz(quiz_course, student, nb)
    cells = quiz_cells(quiz_course.grade(student))
    failed = {g: [k.message for k in cells[g].checks if not k.passed] for g in ("test_tq1", "test_tq2", "test_tq5")}
    notes = {g: notes_of(cells[g]) for g in failed}
    assert any("lecture's numbers" in m for m in notes["test_tq1"]), notes
    assert any("standard deviation" in m for m in notes["test_tq2"]), notes
    # two parts of one question, two findings, each saying which part it is about
    assert len(cells["test_tq5"].findings) == 2, cells["test_tq5"].findings
    assert any("instead of its square" in m and "growth of the score table" in m for m in notes["test_tq5"]), notes
    assert any("4 bytes" in m and "FP16" in m for m in notes["test_tq5"]), notes
    assert cells["test_tq5"].diagnosis and all(k.mistake for k in cells["test_tq5"].checks if not k.passed)
    # partial credit: the other parts keep their points
    assert 0 < cells["test_tq1"].score < cells["test_tq1"].points
    # never the right number in the feedback
    right = str(p["key"]["tq5_factor"])
    assert all(right not in m for m in failed["test_tq5"] + notes["test_tq5"])


def test_chinese_yes_no_and_an_increase_instead_of_a_factor(quiz_course):
    """"否" answers a yes/no question as "no" does; a growth given as the factor minus one (a
    Chinese reader's "增大了 8 倍" for a factor of 9) is named, not just "wrong value"."""
    student = STUDENTS[8]
    p = params(quiz_course, student)
    k = p["q5_n2"] / p["q5_n1"]
    nb = key(quiz_course, student)
    append_to(nb, "tq1", {"tq1_weights_change": "否"})
    append_to(nb, "tq5", {"tq5_factor": k * k - 1})
    submit_quiz(quiz_course, student, nb)
    cells = quiz_cells(quiz_course.grade(student))
    assert cells["test_tq1"].score == cells["test_tq1"].points
    assert any("the factor minus 1" in m for m in notes_of(cells["test_tq5"])), notes_of(cells["test_tq5"])


def test_manual_grade_round_trip_through_nbgrader(quiz_course):
    """Grade a free-text answer as formgrader does (nbgrader's Gradebook API); nbgrader export shows it."""
    student = STUDENTS[6]
    submit_quiz(quiz_course, student, key(quiz_course, student))
    assert quiz_course.autograde(student) == 0
    gb = quiz_course.gradebook()
    try:
        grade = gb.find_grade("tq1_explain", QUIZ, ASSIGNMENT, student)
        assert grade.needs_manual_grade and grade.manual_score is None
        before = gb.find_submission(ASSIGNMENT, student).score
        grade.manual_score = 1.5
        grade.needs_manual_grade = False
        gb.db.commit()
    finally:
        gb.close()
    env = {"PATH": f"{VENV_BIN}:/usr/bin:/bin", "GRADEKIT_SECRET": SECRET, "HOME": str(quiz_course.root)}
    subprocess.run([str(VENV_BIN / "nbgrader"), "export"], cwd=quiz_course.root, env=env, check=True,
                   capture_output=True)
    rows = {r["student_id"]: r for r in csv.DictReader(open(quiz_course.root / "grades.csv"))}
    assert float(rows[student]["score"]) == pytest.approx(before + 1.5)
    # regrading keeps the person's grade
    assert quiz_course.cli("autograde", ASSIGNMENT, "--student", student, "--force") == 0
    gb = quiz_course.gradebook()
    try:
        assert gb.find_grade("tq1_explain", QUIZ, ASSIGNMENT, student).manual_score == 1.5
    finally:
        gb.close()
    # the feedback page shows the person's grade, and the one still to grade as waiting
    assert quiz_course.cli("feedback", ASSIGNMENT, "--student", student) == 0
    page = (quiz_course.root / "feedback" / student / ASSIGNMENT / f"{QUIZ}.html").read_text()
    section = page.split('id="tq1_explain"', 1)[1].split("</section>", 1)[0]
    assert "graded by your instructor, 1.5 / " in section
    section = page.split('id="tq5_explain"', 1)[1].split("</section>", 1)[0]
    assert "waiting for a manual grade" in section


def test_free_text_left_as_handed_out_is_not_answered(quiz_course):
    """Marked at grading time; by default it still waits for a person (c.Gradekit.unanswered_free_text_zero is off)."""
    student = STUDENTS[7]
    release = nbformat.read(str(quiz_course.root / "release" / student / ASSIGNMENT / f"{QUIZ}.ipynb"),
                            as_version=4)
    stub = next(c.source for c in release.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "tq1_explain")
    nb = key(quiz_course, student)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "tq1_explain":
            cell.source = stub
    submit_quiz(quiz_course, student, nb)
    cells = quiz_cells(quiz_course.grade(student))
    assert not cells["tq1_explain"].answered and cells["tq1_explain"].score is None
    assert cells["tq5_explain"].answered and cells["tq5_explain"].score is None
