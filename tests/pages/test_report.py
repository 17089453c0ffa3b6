"""The class report's numbers, files and command, on synthetic results (no grading, no browser).

The browser tests (test_report_browser.py) grade a real class and open the
pages; these pin the arithmetic: discrimination, histograms, misconception and
option counts, the CSV and JSON agreeing with each other, the integrity
section, the exercise titles and how points are written.
"""

from __future__ import annotations

import csv
import io
import json

import nbformat
import pytest

from conftest import ASSIGNMENT, CourseDir
from gradekit.pages import look as page
from gradekit.notebook import exercises as sections
from gradekit.results import CellResult, Check, NotebookResult, SubmissionResult
from gradekit.grading.diagnosis import diagnose


# -- how numbers and titles are written ------------------------------------------------

@pytest.mark.parametrize("value, text", [(16.93333, "16.93"), (20.0, "20"), (1.5, "1.5"), (0.004, "0"),
                                         (2.999, "3"), (None, "–")])
def test_points_are_rounded_to_two_decimals(value, text):
    assert page.points(value) == text


def test_one_point_two_points():
    assert [page.points_phrase(v) for v in (1, 1.0, 2, 1.5, 0.999)] == \
        ["1 point", "1 point", "2 points", "1.5 points", "1 point"]


def test_exercise_titles_come_from_the_heading_before_the_cell():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title of the notebook\n\nintro"),
        nbformat.v4.new_markdown_cell("## 3. Softmax: from scores to weights\n\ntext"),
        nbformat.v4.new_code_cell("", metadata={"nbgrader": {"grade": False, "solution": True, "grade_id": "softmax"}}),
        nbformat.v4.new_code_cell("", metadata={"nbgrader": {"grade": True, "grade_id": "test_softmax", "points": 2}}),
        nbformat.v4.new_markdown_cell("## Question 2 — why divide by $\\sqrt{d_k}$ for {{ n }} tokens"),
        nbformat.v4.new_markdown_cell("# a heading inside a graded answer is not a title",
                                      metadata={"nbgrader": {"grade": True, "solution": True, "grade_id": "q2_explain"}}),
        nbformat.v4.new_code_cell("", metadata={"nbgrader": {"grade": True, "grade_id": "test_q2", "points": 1}}),
    ])
    found = sections.headings(nb)
    assert found["test_softmax"] == sections.Heading("3. Softmax", "3. Softmax: from scores to weights")
    assert found["test_q2"].title == "Question 2"
    assert found["test_q2"].full == "Question 2 — why divide by √d_k for … tokens"
    assert found["q2_explain"].title == "Question 2"
    groups = sections.group(["test_softmax", "q2_explain", "test_q2", "orphan"], found)
    assert [(h.title, gids) for h, gids in groups] == [
        ("3. Softmax", ["test_softmax"]), ("Question 2", ["q2_explain", "test_q2"]), ("orphan", ["orphan"])]


# -- the numbers, on a synthetic class -------------------------------------------------

def _class(rows, layout, choice=()):
    from gradekit.course import Course
    from gradekit.pages.report.data import GRADED, ClassData, Row

    course = Course(root=__import__("pathlib").Path("/nonexistent"), course_id="c", db_url="sqlite://")
    students = [Row(r.student, GRADED, r) for r in rows]
    return ClassData(course, ASSIGNMENT, ["nb"], layout, students)


def _layout(*cells, choice=()):
    from gradekit.pages.report.data import Cell

    return [Cell(gid, "nb", points, False, sections.Heading(title, title), gid in choice) for gid, points, title in cells]


def _result(student, scores: dict, diagnosis=None, checks=None):
    cells = []
    for gid, (score, points) in scores.items():
        cell = CellResult(gid, points, score, list((checks or {}).get(gid, [])))
        cell.diagnosis = list((diagnosis or {}).get(gid, []))
        cells.append(cell)
    return SubmissionResult(student, ASSIGNMENT, [NotebookResult("nb", cells)], seconds=0.1)


def test_discrimination_and_flags():
    from gradekit.pages.report import stats

    layout = _layout(("tracks", 1, "A"), ("inverse", 1, "B"), ("all_pass", 1, "C"), ("rest", 10, "D"))
    rows = []
    for i in range(20):
        strong = i >= 10
        rows.append(_result(f"s{i:02d}", {"tracks": (1.0 if strong else 0.0, 1), "inverse": (0.0 if strong else 1.0, 1),
                                         "all_pass": (1.0, 1), "rest": (float(i) / 2, 10)}))
    items = {i["grade_id"]: i for i in stats.items(_class(rows, layout))}
    assert items["tracks"]["item_rest_r"] > 0.8 and items["tracks"]["upper_lower"] == 1.0
    assert items["inverse"]["item_rest_r"] < 0 and "discriminates negatively" in items["inverse"]["flags"]
    assert items["all_pass"]["item_rest_r"] is None and items["all_pass"]["flags"] == ["too easy"]
    assert items["tracks"]["mean_share"] == 0.5 and items["tracks"]["full_share"] == 0.5
    assert items["tracks"]["zero_share"] == 0.5 and items["tracks"]["flags"] == []


def test_the_slowest_submissions_say_why():
    """A grading process's first submission waits for its sandbox: said so, not blamed on the grader."""
    from gradekit.pages.report import stats

    layout = _layout(("a", 1, "A"))
    first, student, plain, broken = (_result(s, {"a": (1.0, 1)}) for s in ("first", "slow_code", "plain", "broken"))
    first.seconds, first.startup_seconds, first.student_seconds = 1.5, 1.2, 0.05
    student.seconds, student.student_seconds = 2.0, 1.8
    plain.seconds, plain.student_seconds = 0.3, 0.05
    broken.seconds, broken.error = 0.4, "self_attention.ipynb: not valid JSON"   # listed as not gradable instead
    why = {s["student"]: s["why"] for s in stats.health(_class([first, student, plain, broken], layout))["slowest"]}
    assert "broken" not in why
    assert why["first"] == "the first submission of its grading process: 1.2 s of it waited for the sandbox to start"
    assert why["slow_code"] == "the student's own code took 1.8 s of it"
    assert why["plain"].startswith("no timeout or crash: the student's code took 0.05 s"), why


def test_a_submission_with_no_readable_file_is_not_among_the_slowest():
    """Found by an outsider: a student whose every file was empty (not gradable, with its reason) was listed
    among the slowest, "no timeout or crash: the student's code took 0.0 s", though none of it ran."""
    from pathlib import Path

    from gradekit.course import Course
    from gradekit.pages.report import stats
    from gradekit.pages.report.data import GRADED, NOT_GRADABLE, ClassData, Row

    layout = _layout(("a", 1, "A"))
    fine, empty = _result("fine", {"a": (1.0, 1)}), _result("empty", {"a": (0.0, 1)})
    empty.seconds, empty.notebooks[0].error = 0.3, "nb.ipynb: the file is empty"
    course = Course(root=Path("/nonexistent"), course_id="c", db_url="sqlite://")
    data = ClassData(course, ASSIGNMENT, ["nb"], layout,
                     [Row("fine", GRADED, fine), Row("empty", NOT_GRADABLE, empty, reason="nb.ipynb: the file is empty")])
    assert [s["student"] for s in stats.health(data)["slowest"]] == ["fine"]


def test_the_health_counts_and_the_slowest_rows_say_the_same():
    """The section counted "1 sandbox kills" (a student whose process exited) while the slowest row, a
    timeout's, said "0 kill(s)": each count now has one word, said the same in the stats, the lists and
    the rows, and a row names only what happened to it."""
    from gradekit.pages.report import stats

    layout = _layout(("a", 1, "A"))
    looped, exited, fine = (_result(s, {"a": (1.0, 1)}) for s in ("looped", "exited", "fine"))
    looped.seconds, looped.student_seconds, looped.timeouts = 10.15, 10.05, 1
    looped.notebooks[0].cells[0].checks.append(
        Check("f", False, "`f` did not finish: no answer within 10 s (endless loop?)"))
    exited.seconds, exited.student_seconds, exited.kills = 0.2, 0.05, 1
    fine.seconds = 0.1
    health = stats.health(_class([looped, exited, fine], layout))
    assert health["timeouts"] == ["looped"] and health["crashes"] == ["exited"]
    why = {s["student"]: s["why"] for s in health["slowest"]}
    assert why["looped"] == "1 timeout: `f` did not finish: no answer within 10 s (endless loop?)"
    assert why["exited"] == "1 crash"
    assert all("kill" not in text for text in why.values()), why


def test_histogram_counts_everyone_and_full_marks_land_in_the_last_bin():
    from gradekit.pages.report.stats import histogram

    values = [0, 0.5, 7.25, 19.99, 20, 20]
    bins = histogram(values, 20)
    assert sum(b["count"] for b in bins) == len(values)
    assert bins[0]["from"] == 0 and bins[-1]["to"] >= 20 and bins[-1]["count"] == 3
    assert all(b["to"] - b["from"] == pytest.approx(bins[0]["to"]) for b in bins)


def test_a_histogram_text_names_its_most_common_range_or_every_tied_one():
    from gradekit.pages.report.plots import score_histogram
    from gradekit.pages.report.stats import histogram

    one = score_histogram("t", "total", histogram([0, 1, 1, 2], 3), 3)
    assert "the most common range is 1 to 1.5, with 2." in one.alt
    tie = score_histogram("t", "total", histogram([0, 1], 3), 3)
    assert "2 ranges are equally common, with 1 each: 0 to 0.5, 1 to 1.5." in tie.alt
    many = score_histogram("t", "total", histogram([0, 0.5, 1, 1.5, 2], 3), 3)
    assert "5 ranges are equally common, with 1 each: 0 to 0.5, 0.5 to 1, 1 to 1.5 and 2 more." in many.alt


def test_the_mistakes_plot_text_counts_students_and_ties():
    from gradekit.pages.report.plots import misconception_bars

    def bars(*counts):
        return misconception_bars([{"exercise": "1. One", "mistakes": [
            {"mistake": f"m{i}", "count": c} for i, c in enumerate(counts)]}])

    assert bars(3, 1).alt.endswith("first: m0, 3 students.")
    assert bars(1).alt.endswith("first: m0, 1 student.")
    assert bars(1, 1, 1).alt.endswith("3 share the most, 1 student each, among them m0.")


def test_misconceptions_count_students_once_and_link_their_feedback():
    from gradekit.pages.report import misconceptions

    layout = _layout(("test_a", 2, "1. A"), ("test_b", 2, "1. A"), ("test_c", 2, "2. C"))
    rows = [
        _result("s1", {"test_a": (0, 2), "test_b": (0, 2), "test_c": (2, 2)},
                diagnosis={"test_a": ["forgot x"], "test_b": ["forgot x"]}),
        _result("s2", {"test_a": (0, 2), "test_b": (2, 2), "test_c": (0, 2)},
                diagnosis={"test_a": ["forgot x", "used y"], "test_c": ["wrong axis"]}),
        _result("s3", {"test_a": (2, 2), "test_b": (2, 2), "test_c": (2, 2)}),
        _result("s4", {"test_a": (2, 2), "test_b": (2, 2), "test_c": (2, 2)}),
    ]
    found = misconceptions.misconceptions(_class(rows, layout))
    assert [e["exercise"] for e in found] == ["1. A", "2. C"]
    first = {m["mistake"]: m for m in found[0]["mistakes"]}
    assert first["forgot x"]["count"] == 2 and first["forgot x"]["share"] == 0.5
    assert first["forgot x"]["uncertain"] == 1 and first["used y"]["count"] == 1
    assert [s["href"] for s in first["forgot x"]["students"]] == [
        f"../../feedback/s1/{ASSIGNMENT}/nb.html#test_a", f"../../feedback/s2/{ASSIGNMENT}/nb.html#test_a"]


def test_a_class_that_fixed_its_mistakes_still_shows_them_per_attempt():
    """Under gradekit serve a student hands in until it is right: the report counts the mistakes made on
    the way (every attempt), not only those of the attempt that counts, and how many fixed each."""
    from gradekit.pages.report import misconceptions

    layout = _layout(("test_a", 2, "1. A"), ("test_c", 2, "2. C"))
    wrong = {"test_a": (0, 2), "test_c": (2, 2)}
    right = {"test_a": (2, 2), "test_c": (2, 2)}
    s1 = [_result("s1", wrong, diagnosis={"test_a": ["forgot x"]}),
          _result("s1", wrong, diagnosis={"test_a": ["forgot x"]}), _result("s1", right)]
    s2 = [_result("s2", wrong, diagnosis={"test_a": ["forgot x"]}), _result("s2", right)]
    s3 = [_result("s3", wrong, diagnosis={"test_a": ["used y"]})]           # still wrong when it counts
    s4 = [_result("s4", right)]
    data = _class([s1[-1], s2[-1], s3[-1], s4[-1]], layout)
    for row, attempts in zip(data.students, (s1, s2, s3, s4), strict=True):
        row.attempts = attempts
    found = {m["mistake"]: m for e in misconceptions.misconceptions(data) for m in e["mistakes"]}
    assert found["forgot x"]["count"] == 2 and found["forgot x"]["fixed"] == 2 and found["forgot x"]["attempts"] == 3
    assert found["used y"]["count"] == 1 and found["used y"]["fixed"] == 0 and found["used y"]["attempts"] == 1
    assert found["forgot x"]["share"] == 0.5
    # without the attempts (autograde alone) only the attempt that counts is seen: nothing to show
    assert "forgot x" not in {m["mistake"] for e in misconceptions.misconceptions(_class([s1[-1], s2[-1]], layout))
                              for m in e["mistakes"]}


def test_the_report_reads_every_attempt_gradekit_serve_kept(tmp_path):
    from gradekit.pages.report.data import ATTEMPTS, RESULTS_FILE, _attempts
    from gradekit.course import Course

    course = Course(root=tmp_path, course_id="c", db_url="sqlite://")
    for k, result in ((1, _result("s1", {"test_a": (0, 2)}, diagnosis={"test_a": ["forgot x"]})),
                      (2, _result("s1", {"test_a": (2, 2)})), (10, _result("s1", {"test_a": (1, 2)}))):
        folder = tmp_path / ATTEMPTS / ASSIGNMENT / "s1" / str(k) / "autograded"
        folder.mkdir(parents=True)
        (folder / RESULTS_FILE).write_text(__import__("json").dumps(result.to_dict()))
    (tmp_path / ATTEMPTS / ASSIGNMENT / "s1" / ".submitted").mkdir()          # a staging folder: not an attempt
    found = _attempts(course, ASSIGNMENT, "s1")
    assert [r.cell("test_a").score for r in found] == [0, 2, 1]               # in attempt order, 10 after 2
    assert _attempts(course, ASSIGNMENT, "nobody") == []


def test_concept_check_options_are_counted_from_the_checks():
    from gradekit.pages.report import misconceptions

    layout = _layout(("test_mc", 2, "Concepts"), choice=("test_mc",))
    wrong = "misconception: weights explain the model"

    def checks(first: Check):
        return {"test_mc": [first, Check("item (q2)", True)]}
    rows = [_result("s1", {"test_mc": (2, 2)}, checks=checks(Check("item (q1)", True))),
            _result("s2", {"test_mc": (1, 2)}, checks=checks(Check("item (q1)", False, "wrong", mistake=wrong))),
            _result("s3", {"test_mc": (1, 2)}, checks=checks(Check("item (q1)", False, "wrong", mistake=wrong))),
            _result("s4", {"test_mc": (1, 2)}, checks=checks(Check("item (q1)", False, "no answer given")))]
    data = _class(rows, layout)
    items = {c["item"]: c for c in misconceptions.concept_checks(data)}
    options = {o["option"]: o["count"] for o in items["item (q1)"]["options"]}
    assert options == {"right answer": 1, wrong: 2, "no answer, or not one of the options": 1}
    assert items["item (q2)"]["options"][0]["share"] == 1.0
    named = misconceptions.misconceptions(data)[0]["mistakes"]
    assert [(m["mistake"], m["count"], m["uncertain"]) for m in named] == [(wrong, 2, 0)]


# -- the command and its files ---------------------------------------------------------

def _graded(course: CourseDir, students: dict[str, float]) -> None:
    """Synthetic results for ``students`` (name -> share of the checks passed), recorded in the gradebook."""
    from gradekit.gradebook.connect import open_gradebook
    from gradekit.gradebook.write import record
    from gradekit.pages.report.data import layout as layout_of

    c = course.course
    layout = layout_of(c, ASSIGNMENT)
    with open_gradebook(c) as gb:
        for student, share in students.items():
            cells = [CellResult(cell.grade_id, cell.points, round(cell.points * share, 6),
                                [Check("check", share == 1.0, "" if share == 1.0 else "wrong -- forgot x",
                                       candidates=[] if share == 1.0 else ["forgot x"])])
                     for cell in layout]
            for cell in cells:
                diagnose(cell)
            result = SubmissionResult(student, ASSIGNMENT, [NotebookResult("self_attention", cells)], seconds=0.2)
            folder = c.autograded_dir(student, ASSIGNMENT)
            folder.mkdir(parents=True)
            (folder / "results.json").write_text(json.dumps(result.to_dict()))
            record(gb, result, c)


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    course = CourseDir.create(tmp_path_factory.mktemp("report-unit") / "course")
    course.generate("alice")
    _graded(course, {"alice": 1.0, "bob": 0.5, "carol": 0.0})
    return course


def test_report_json_and_csv_say_the_same(reported, capsys):
    assert reported.cli("report", ASSIGNMENT) == 0
    out = capsys.readouterr().out
    folder = reported.root / "reports" / ASSIGNMENT
    assert str(folder / "index.html") in out and "3 student(s) have no feedback page" in out
    report = json.loads((folder / "report.json").read_text())
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO((folder / "report.csv").read_text()))}
    assert set(rows) == set(reported.students())
    for student in report["students"]:
        row = rows[student["student"]]
        assert row["status"] == student["status"]
        assert row["total"] == page.points(student["total"]) if student["total"] is not None else row["total"] == ""
    assert report["class"]["graded"] == 3 and report["class"]["not_submitted"] == len(reported.students()) - 3
    assert [s["total"] for s in report["students"] if s["student"] in ("alice", "bob", "carol")] == [20, 10, 0]
    forgot = report["misconceptions"][0]["mistakes"][0]
    assert forgot["mistake"] == "forgot x" and forgot["count"] == 2
    html = (folder / "index.html").read_text()
    assert 'id="integrity"' not in html and "<script src" not in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "").replace('xmlns:xlink="http://www.w3.org/1999/xlink"', "")


def test_an_integrity_report_gains_a_section(reported):
    folder = reported.root / "reports" / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "integrity.json").write_text(json.dumps(
        [{"students": ["bob", "carol"], "evidence": ["same unusual variable names"], "score": 0.93}]))
    try:
        assert reported.cli("report", ASSIGNMENT) == 0
        html = (folder / "index.html").read_text()
        section = html.split('id="integrity"', 1)[1].split("</section>", 1)[0]
        assert 'href="integrity.html"' in section and "same unusual variable names" in section
        assert "1 pair of submissions looks alike. The evidence" in " ".join(section.split())
        assert json.loads((folder / "report.json").read_text())["integrity"][0]["students"] == ["bob", "carol"]
    finally:
        (folder / "integrity.json").unlink()


def test_under_an_address_space_limit_the_report_draws_every_plot(reported):
    """``ulimit -v`` (shared login nodes): the plots are drawn in Python, so a limit that kept
    vl-convert's V8 engine from starting (it drew none there, even at 40 GB) changes nothing."""
    from conftest import VENV_BIN

    limit_kib = 2 * 1024 * 1024
    proc = reported.run("sh", "-c", f"ulimit -v {limit_kib} && exec {VENV_BIN / 'gradekit'} report {ASSIGNMENT}",
                        check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "left out" not in proc.stdout, proc.stdout + proc.stderr
    html = (reported.root / "reports" / ASSIGNMENT / "index.html").read_text()
    figures = html.split('<figure id="')[1:]
    assert len(figures) >= 6
    for figure in figures:
        rows = figure.split("<tbody>", 1)[1].split("</tbody>", 1)[0].count("<tr>") if "<tbody>" in figure else 0
        assert figure.count('role="graphics-symbol"') == rows, figure[:40]
        assert ("<svg" in figure) == (rows > 0) and "<details open>" not in figure


def test_report_before_grading_is_one_line(course, capsys):
    assert course.cli("report", ASSIGNMENT) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "gradekit autograde" in err[0]
    assert course.cli("report", "nope") == 2
    assert "unknown assignment" in capsys.readouterr().err


def test_the_report_reads_the_file_autograde_writes():
    from gradekit.results import RESULTS_FILE
    from gradekit.pages.report.data import RESULTS_FILE as READ

    assert READ == RESULTS_FILE


def test_bad_gradekit_settings_are_one_line(course, capsys):
    with (course.root / "nbgrader_config.py").open("a") as fh:
        fh.write("\nc.Gradekit.choice_cells = 5\n")
    assert course.cli("report", ASSIGNMENT) == 3      # a course failure
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "choice_cells" in err[0]


def test_the_rubric_counts_come_from_the_results():
    """Each item's count is how many graded answers hold it in their result; an item no one got is listed
    with 0, an answer graded with no item counts as graded; the most given first, then the rubric's order."""
    from gradekit.gradebook.rubrics import Rubric
    from gradekit.pages.report import stats
    from gradekit.results import RubricItem

    missing, swapped, unused = RubricItem("missing", -1.0), RubricItem("swapped", -2.0), RubricItem("never", -0.5)
    rows = [_result(f"s{i}", {"q1": (1.0, 2)}) for i in range(5)]
    given = [[missing], [swapped, missing], [], None, [missing]]   # None: no person graded it
    for row, items in zip(rows, given):
        row.notebooks[0].cells[0].rubric = items
    data = _class(rows, _layout(("q1", 2, "Question 1")))
    data.rubrics = [Rubric("q1", "nb", "q1", [swapped, unused, missing]), Rubric("q9", "nb", "q9", [])]
    (counted,) = stats.rubric_counts(data)
    assert (counted["cell"], counted["title"], counted["graded"], counted["answers"]) == ("q1", "Question 1", 4, 5)
    assert [(i["text"], i["points"], i["count"], i["share"]) for i in counted["items"]] == [
        ("missing", "−1", 3, 0.75), ("swapped", "−2", 1, 0.25), ("never", "−0.5", 0, 0.0)]
