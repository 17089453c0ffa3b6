"""gradekit.pages.feedback: what a student's page says, in their language, and what it never shows."""

from __future__ import annotations

import re

from conftest import with_solutions, known_sources

from gradekit.course import Course
from gradekit.grading.told import TOLD
from gradekit.pages.feedback import student_copy, waiting_sentence, write_feedback
from gradekit.results import CellResult, NotebookResult

A = "self_attention"


def test_a_page_names_the_mistake_and_sums_up_each_exercise(course):
    course.generate("alice")
    course.submit("alice", with_solutions(course.answer_key("alice"), known_sources("mistakes/softmax_wrong_axis")))
    result = course.grade("alice")
    (page,) = write_feedback(Course.load(course.root), result, told=TOLD)
    html = page.read_text()
    assert "normalised along axis 0 whatever" in html               # the named mistake
    assert re.search(r"Softmax.*?checks failed", html, re.S)        # its exercise's summary line
    assert html.count("all checks passed") >= 4                     # the other exercises kept their points
    assert "/ 20" in html and result.score < 20


def test_the_students_copy_has_no_link_to_the_class():
    page = "<p>score</p><!--instructor--><a href='../../reports/index.html'>class report</a><!--/instructor--><p>end</p>"
    assert student_copy(page) == "<p>score</p><p>end</p>"


def test_a_chinese_readers_page_is_in_chinese(course):
    (course.root / "languages.csv").write_text("student_id,language\nbob,zh\n")
    course.generate("bob")
    course.submit("bob", with_solutions(course.answer_key("bob"), known_sources("mistakes/softmax_wrong_axis")))
    (page,) = write_feedback(Course.load(course.root), course.grade("bob"), told=TOLD)
    html = page.read_text()
    assert 'lang="zh-CN"' in html and "可能的错误" in html and "Likely mistake" not in html


def test_a_waiting_answer_is_said_once_and_counted_right():
    nb = NotebookResult("quiz", [CellResult("tq1_explain", 2, None, manual=True),
                                 CellResult("tq5_explain", 1, None, manual=True, answered=False)])
    assert waiting_sentence(nb) == "1 answer still waits for a manual grade; its points are not counted yet."
    nb.cells.append(CellResult("other", 1, None, manual=True))
    assert waiting_sentence(nb).startswith("2 answers still wait")


def test_checks_that_only_differ_are_one_line_and_the_relation_is_said(course):
    """Four "N of N values differ" lines become one line with its cases; what the values show is said
    above them; no expected value is on the page."""
    from gradekit.results import Check, Relation, SubmissionResult

    bare = [Check(f"case {i}", False, f"scaled_scores on case {i}: 12 of 12 values differ from the reference "
                  "(tolerance rtol=1e-05, atol=1e-06)", differs=[[f"scaled_scores on case {i}", 12, 12]],
                  tolerance=[1e-5, 1e-6]) for i in range(4)]
    relation = Relation("", "factor", ["expr:1/n_k"], {"sizes": {"n_k": [7, 5]}, "form": ["1/{}"]}, 4, 4, 4)
    cell = CellResult("test_scaled_scores", 2, 0.0, [Check("shape", True), *bare], relations=[relation])
    result = SubmissionResult("alice", A, [NotebookResult("self_attention", [cell])])
    (page,) = write_feedback(Course.load(course.root), result, told=TOLD)
    html = page.read_text()
    assert html.count("values differ from the reference") == 1
    assert "4 checks: values differ from the reference (tolerance rtol=1e-05, atol=1e-06):" in html
    assert html.count('<ul class="cases">') == 1 and "scaled_scores on case 3 (12 of 12 values)" in html
    assert "Your values are the right ones divided by n_k (= 7, 5) (on all 4 failed checks)." in html


def _two_notebooks(quiz_score: float):
    from gradekit.results import SubmissionResult

    exercise = NotebookResult("self_attention", [CellResult("test_softmax", 10, 8.0), CellResult("test_mask", 10, 10.0)])
    quiz = NotebookResult("quiz", [CellResult("test_tq1", 9, quiz_score, exercise="Question 1: the weights"),
                                   CellResult("test_tq2", 10, 0.0, exercise="Question 2: the scale")])
    return SubmissionResult("alice", A, [exercise, quiz], seconds=0.1)


def test_one_score_the_counting_one_with_what_is_hidden_and_its_worth_beside_it(course, tmp_path):
    """The service's log said "18/39" where the page said "18 / 20": both now give the hand-in's score out of
    the whole assignment, and say what waits for the due date and what it is worth."""
    from gradekit.pages.feedback import Disclosure, ShownNow

    hidden = Disclosure("full", frozenset({"quiz"}), "2026-12-18 23:59 UTC")
    for quiz_score in (0.0, 9.0):   # a right quiz answer changes the score that counts, not what shows
        result = _two_notebooks(quiz_score)
        shown = ShownNow.of(result, hidden)
        assert (shown.score, shown.shown, shown.possible) == (18 + quiz_score, 18, 39)
        assert shown.held == (("quiz", 19),) and shown.held_text() == "quiz (19 points)"
        pages = write_feedback(Course.load(course.root), result, out_dir=tmp_path / str(quiz_score), disclosure=hidden, told=TOLD)
        for page in pages:
            html = page.read_text()
            assert "The whole hand-in so far: 18 / 39." in html, html[:3000]
            assert "Checked after the due date (2026-12-18 23:59 UTC): quiz (19 points)." in html
    everything = ShownNow.of(_two_notebooks(9.0), Disclosure())
    assert (everything.score, everything.shown, everything.held) == (27, 27, ())
    (plain,) = [p for p in write_feedback(Course.load(course.root), _two_notebooks(9.0), out_dir=tmp_path / "after", told=TOLD)
                if p.stem == "self_attention"]
    assert "The whole hand-in so far" not in plain.read_text()   # after the due date: the page's one score
    one_cell = ShownNow.of(_two_notebooks(9.0), Disclosure("full", frozenset({"test_tq1"}), "x"))
    assert one_cell.held == (("quiz/test_tq1", 9),) and one_cell.shown == 18


def test_a_page_is_a_function_of_the_result(course, tmp_path):
    """Grading puts into the result what the page shows of the notebooks (the titles, the answers, the
    notes): the page stays the same when the graded notebooks are gone and the source's headings change."""
    import shutil

    course.generate("carol")
    course.submit("carol", with_solutions(course.answer_key("carol"), known_sources("mistakes/softmax_wrong_axis")))
    result = course.grade("carol")
    nb = result.notebooks[0]
    softmax = next(c for c in nb.cells if c.grade_id == "test_softmax")
    assert softmax.exercise.startswith("3. Softmax") and "def softmax" in softmax.answer
    assert nb.title
    (before,) = write_feedback(Course.load(course.root), result, out_dir=tmp_path / "before", told=TOLD)
    shutil.rmtree(course.root / "autograded", ignore_errors=True)
    source = course.root / "source" / A / f"{nb.name}.ipynb"
    source.write_text(source.read_text().replace("Softmax", "Something else"))
    (after,) = write_feedback(Course.load(course.root), result, out_dir=tmp_path / "after", told=TOLD)
    assert after.read_text() == before.read_text()
    assert "Something else" not in after.read_text() and "def softmax" in after.read_text()


def test_rubric_items_titles_and_notes_come_from_the_result_in_the_students_language(course, tmp_path):
    """A hand-made result, no grading and no store: what the page shows is what the result holds."""
    from gradekit.results import RubricItem, SubmissionResult

    cells = [CellResult("tq1_explain", 2, 1.0, manual=True, by_hand=True, exercise="Question 1: roles",
                        answer="Q and K decide the weights.",
                        rubric=[RubricItem("V's role is missing.", -1.0), RubricItem("Nicely put.", -0.0),
                                RubricItem("A bonus.", 0.5)]),
             CellResult("tq2_explain", 2, 2.0, manual=True, by_hand=True, exercise="Question 1: roles", rubric=[])]
    nb = NotebookResult("quiz", cells, title="The quiz", notes=["1 read-only cell(s) differ"])
    result = SubmissionResult("dan", A, [nb], language="zh",
                              translations={"V's role is missing.": "没有说 V 的作用。", "The quiz": "思考题",
                                            "Question 1: roles": "问题一：角色"})
    (page,) = write_feedback(Course.load(course.root), result, out_dir=tmp_path, told=TOLD)
    html = page.read_text()
    items = re.findall(r'<li lang="([^"]+)"><b>([^<]+)</b> ([^<]+)</li>', html)
    assert items == [("zh-CN", "−1", "没有说 V 的作用。"), ("en", "−0", "Nicely put."), ("en", "+0.5", "A bonus.")]
    assert "<h1>思考题" in html and html.count("<h2>问题一") == 2
    assert html.count('<a href="#tq1_explain">问题一</a>') == 1        # both cells: one exercise in the summary
    assert "Q and K decide the weights." in html and "1 read-only cell(s) differ" in html
    assert html.count('class="rubric"') == 1                            # graded with no item: nothing listed


def test_what_waits_for_the_due_date_is_named_as_the_page_names_it(course_factory, tmp_path):
    """"Checked after the due date: quiz/test_tq1 (9 points)" named a cell by its grade id: it is named by
    its exercise's title, as the page's table is, with the notebook when the hand-in has several; one
    point is "1 more point is", in English and in Chinese."""
    import dataclasses

    from gradekit.pages.feedback import Disclosure

    course = course_factory(quiz=True)
    one_cell = Disclosure("full", frozenset({"test_tq1"}), "2026-12-18 23:59 UTC")
    pages = {p.stem: p.read_text() for p in write_feedback(Course.load(course.root), _two_notebooks(9.0),
                                                            out_dir=tmp_path / "en", disclosure=one_cell, told=TOLD)}
    title = re.search(r'<a href="#test_tq1">([^<]+)</a>', pages["quiz"]).group(1)
    assert title.startswith("Question 1")
    assert f"Checked after the due date (2026-12-18 23:59 UTC): quiz › {title} (9 points)." in pages["self_attention"]
    assert "test_tq1 (" not in pages["self_attention"] and "quiz/test_tq1" not in pages["quiz"]
    assert "9 more points are checked after the due date" in pages["quiz"]

    worth_one = _two_notebooks(9.0)
    worth_one.notebooks[1].cells[0] = dataclasses.replace(worth_one.notebooks[1].cells[0], points=1)
    alone = dataclasses.replace(worth_one, notebooks=[worth_one.notebooks[1]])   # one notebook: the title alone
    (quiz,) = write_feedback(Course.load(course.root), alone, out_dir=tmp_path / "one", disclosure=one_cell, told=TOLD)
    html = quiz.read_text()
    assert "1 more point is checked after the due date (2026-12-18 23:59 UTC)" in html and "1 point more" not in html
    assert f"Checked after the due date (2026-12-18 23:59 UTC): {title} (1 point)." in html
    (zh,) = write_feedback(Course.load(course.root), dataclasses.replace(alone, language="zh"),
                           out_dir=tmp_path / "zh", disclosure=one_cell, told=TOLD)
    assert "另有 1 分在截止日期（2026-12-18 23:59 UTC）后检查" in zh.read_text()


def test_a_page_links_only_to_what_the_student_receives_with_it(course):
    """The page in feedback/ is the one nbgrader's release_feedback hands the student: it links to its own
    sections and to the student's other notebooks' pages, never up to the class report."""
    (course.root / "languages.csv").write_text("student_id,language\n")
    pages = write_feedback(Course.load(course.root), _two_notebooks(9.0), told=TOLD)
    for page in pages:
        html = page.read_text()
        links = set(re.findall(r'href="([^"]*)"', html))
        assert links and all(link.startswith("#") or link in {"self_attention.html", "quiz.html"} for link in links), links
        assert "reports/" not in html and "class overview" not in html
        assert student_copy(html) == html
