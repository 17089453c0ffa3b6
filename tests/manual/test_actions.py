"""Grading changes on a synthetic class (tests/manual_class.py): scores in nbgrader's gradebook, two
graders at once, numbers graded by the mistake they match."""

from __future__ import annotations

import threading

import pytest

from manual_class import TQ1_MISTAKES, build

pytestmark = pytest.mark.e2e  # a class of 40 in the gradebook: a few seconds


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    course, kinds = build(tmp_path_factory.mktemp("manual") / "course", 40, seed=2)
    return course, kinds


def _desk(course):
    from gradekit.manual.actions import Desk

    return Desk(course.course, "self_attention")


def _grades(course, cell="tq1_explain", notebook="quiz"):
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        students = sorted(s.id for s in gb.students)
        return {s: (gb.find_grade(cell, notebook, "self_attention", s).manual_score,
                    gb.find_grade(cell, notebook, "self_attention", s).auto_score) for s in students}


def test_two_graders_at_once_lose_no_grade(synthetic):
    course, _ = synthetic
    first, second = _desk(course), _desk(course)
    first.open("tq5_explain")
    a = first.save_item("tq5_explain", "ann", "s-ann", 0.25, "No word on the languages that make many tokens.")
    b = second.save_item("tq5_explain", "bo", "s-bo", 0.5, "The cost is not linear: it grows with the square.")
    with first.store.reading() as db:
        everyone = [s for members in first.store.groups(db, "tq5_explain").values() for s in members]
    errors = []

    def grade(desk, item, who, session):
        try:
            for student in everyone:
                desk.apply("tq5_explain", item, who, session, students=[student], on=True)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=grade, args=(first, a["item"], "ann", "s-ann")),
               threading.Thread(target=grade, args=(second, b["item"], "bo", "s-bo"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    got = _grades(course, "tq5_explain")
    assert {got[s][0] for s in everyone} == {0.25}  # 1 - 0.25 - 0.5: both graders' items on everyone
    first.undo("s-ann", "ann")  # ann's last change only: bo's item stays
    got = _grades(course, "tq5_explain")
    assert got[everyone[-1]][0] == 0.5 and got[everyone[0]][0] == 0.25
    first.writer.close()
    second.writer.close()


def test_numbers_graded_by_the_mistake_they_match(synthetic):
    """A rubric item gives partial credit to a mistake's group; only those answers get a manual score."""
    course, kinds = synthetic
    desk = _desk(course)
    desk.open("tq1")
    with desk.store.reading() as db:
        groups = desk.store.groups(db, "tq1")
        info = desk.store.group_info(db, "tq1")
        mode = desk.store.question_row(db, "tq1")["mode"]
    assert mode == "adjust"
    lecture = next(g for g, (label, kind) in info.items() if kind == "mistake" and label == TQ1_MISTAKES[0])
    assert sorted(groups[lecture]) == sorted(s for s, k in kinds["tq1"].items() if k == TQ1_MISTAKES[0])
    item = desk.save_item("tq1", "ann", "s1", 1, "Right method on the lecture's numbers: half the credit back.")
    desk.apply("tq1", item["item"], "ann", "s1", group=lecture)
    got = _grades(course, "test_tq1")
    for student, kind in kinds["tq1"].items():
        if kind == TQ1_MISTAKES[0]:
            assert got[student] == (2.0, 1.0)  # the autograder's 1, plus 1
        else:
            assert got[student][0] is None  # the autograder's score stands where no person said otherwise
    desk.undo("s1", "ann")
    assert all(manual is None for manual, _ in _grades(course, "test_tq1").values())
    desk.writer.close()


def test_the_results_carry_the_items_a_person_gave(synthetic):
    """What the feedback pages and the class report read: each result as it stands now holds the items
    its answer got (signed as they count), the sentence in the student's language among its translations;
    an answer graded with no item holds none; one no person graded, no rubric at all."""
    from gradekit.authoring.languages import student_languages
    from gradekit.gradebook.marks import marked_results, read_class_marks
    from gradekit.results import RubricItem

    course, _ = synthetic
    languages = student_languages(course.course)
    zh = next(s for s, lang in sorted(languages.items()) if lang == "zh")
    en = next(s for s, lang in sorted(languages.items()) if lang == "en")
    bare = next(s for s in sorted(languages) if s not in (zh, en))
    desk = _desk(course)
    desk.open("tq1_explain")
    item = desk.save_item("tq1_explain", "ann", "s-r", 1, "V's role is missing.", {"zh": "没有说 V 的作用。"})["item"]
    desk.apply("tq1_explain", item, "ann", "s-r", students=[zh, en], on=True)
    desk.grade("tq1_explain", "ann", "s-r", students=[bare])
    desk.writer.close()
    marks = read_class_marks(course.course, "self_attention")
    assert [r.items for r in marks.rubrics if r.cell == "tq1_explain"] == [[RubricItem("V's role is missing.", -1.0)]]
    for result in marked_results(course.course, "self_attention", [zh, en, bare]):
        for got in (result, marks.apply(result)):
            cell = got.cell("tq1_explain")
            assert cell.rubric == ([] if got.student == bare else [RubricItem("V's role is missing.", -1.0)])
            assert (got.translations.get("V's role is missing.") == "没有说 V 的作用。") == (got.student == zh)
    others = [r for r in marked_results(course.course, "self_attention") if r.student not in (zh, en, bare)]
    assert others and all(r.cell("tq1_explain").rubric is None for r in others if r.cell("tq1_explain"))
    desk = _desk(course)
    for _ in range(3):
        desk.undo("s-r", "ann")
    desk.writer.close()
