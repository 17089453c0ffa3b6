"""The class report and the feedback pages, opened in a real browser (Playwright driving Debian's chromium).

One small class is graded once for the module through the installed commands
(generate, autograde, feedback, report), with known mistakes:

    alice   answer keys
    bob     softmax along the wrong axis; one concept check answered with a wrong option
    carol   scores divided by d_k instead of its square root
    dave    the same; both free-text answers left as handed out (the course scores them 0)
    erin    an empty file: not gradable
    frank   answer keys, submitted after the due date
    grace   nothing submitted

Each page is checked as a person would meet it: it loads from file:// with no
console error and no network request, every plot is drawn at a visible size
with one mark per row of its data table, the numbers on the page are those of
report.json and agree with nbgrader's gradebook, every link to a feedback page
resolves, and a screenshot of each page is kept in tests/artifacts/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest

from conftest import ASSIGNMENT, VENV_BIN, CourseDir, known_sources, with_solutions

pytestmark = [pytest.mark.e2e]

GRADEKIT_CMD = str(VENV_BIN / "gradekit")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
STUDENTS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace")
MANUAL = ("tq1_explain", "tq5_explain")


def _solutions(name: str) -> dict[str, str]:
    return known_sources(f"mistakes/{name}")


def _keys(course: CourseDir, student: str) -> dict[str, nbformat.NotebookNode]:
    out = course.root / "keys" / student
    if not (out / "quiz.ipynb").exists():
        assert course.cli("answer-key", ASSIGNMENT, "--student", student, "--out", str(out)) == 0
    return {name: nbformat.read(str(out / f"{name}.ipynb"), as_version=4) for name in ("self_attention", "quiz")}


def _submit(course: CourseDir, student: str, notebooks: dict, timestamp: str = "2026-11-20 10:00:00 UTC") -> None:
    folder = course.root / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    for name, nb in notebooks.items():
        if isinstance(nb, bytes):
            (folder / f"{name}.ipynb").write_bytes(nb)
        else:
            nbformat.write(nb, str(folder / f"{name}.ipynb"))
    (folder / "timestamp.txt").write_text(timestamp)


def _wrong_option(quiz: nbformat.NotebookNode, item: str) -> nbformat.NotebookNode:
    """The key with one concept check answered with another letter than the right one."""
    for cell in quiz.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "concepts":
            right = re.search(rf'^{item} = "([A-D])"', cell.source, re.M).group(1)
            wrong = "A" if right != "A" else "B"
            cell.source += f'\n{item} = "{wrong}"\n'
    return quiz


def _release(course: CourseDir, student: str, name: str) -> nbformat.NotebookNode:
    return nbformat.read(str(course.root / "release" / student / ASSIGNMENT / f"{name}.ipynb"), as_version=4)


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    from nbgrader.api import Gradebook

    course = CourseDir.create(tmp_path_factory.mktemp("report") / "course", STUDENTS, quiz=True)
    with (course.root / "nbgrader_config.py").open("a") as fh:
        fh.write("\nc.Gradekit.unanswered_free_text_zero = True\n")
    with Gradebook(course.db_url) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate="2026-11-25 12:00:00 UTC")
    course.generate()         # in this process, as the answer keys: only grading runs apart
    alice, bob, carol, dave, erin, frank = (_keys(course, s) if s != "erin" else None for s in STUDENTS[:6])
    _submit(course, "alice", alice)
    _submit(course, "bob", {"self_attention": with_solutions(bob["self_attention"], _solutions("softmax_wrong_axis")),
                            "quiz": _wrong_option(bob["quiz"], "mc_scaling")})
    _submit(course, "carol", {"self_attention": with_solutions(carol["self_attention"], _solutions("scores_div_dk")),
                              "quiz": carol["quiz"]})
    quiz = dave["quiz"]
    blank = _release(course, "dave", "quiz")
    stubs = {c.metadata["nbgrader"]["grade_id"]: c.source for c in blank.cells
             if c.metadata.get("nbgrader", {}).get("grade_id") in MANUAL}
    for cell in quiz.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") in stubs:
            cell.source = stubs[cell.metadata["nbgrader"]["grade_id"]]
    _submit(course, "dave", {"self_attention": with_solutions(dave["self_attention"], _solutions("scores_div_dk")),
                             "quiz": quiz})
    _submit(course, "erin", {"self_attention": b"", "quiz": b""})
    _submit(course, "frank", frank, timestamp="2026-11-27 09:00:00 UTC")
    course.run(GRADEKIT_CMD, "autograde", ASSIGNMENT, "--jobs", "2")
    course.run(GRADEKIT_CMD, "feedback", ASSIGNMENT)
    made = course.run(GRADEKIT_CMD, "report", ASSIGNMENT)
    assert "index.html" in made.stdout
    ARTIFACTS.mkdir(exist_ok=True)
    return course


class Visit:
    """A page opened in a fresh context, with what it logged and what it asked the network for."""

    def __init__(self, browser, path: Path, javascript: bool = True):
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=javascript)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")

    def network(self) -> list[str]:
        return [url for url in self.requests if not url.startswith("file://")]

    def screenshot(self, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        self.context.close()


def report_path(course: CourseDir) -> Path:
    return course.root / "reports" / ASSIGNMENT / "index.html"


def report_json(course: CourseDir) -> dict:
    return json.loads((course.root / "reports" / ASSIGNMENT / "report.json").read_text())


@pytest.fixture(scope="module")
def report_page(graded_class, browser):
    visit = Visit(browser, report_path(graded_class))
    yield visit
    visit.close()


def test_report_loads_offline_without_errors(graded_class, report_page):
    assert report_page.errors == []
    assert report_page.network() == []
    shot = report_page.screenshot("report")
    assert shot.stat().st_size > 10_000
    # the declared font stack draws Chinese with Noto Sans CJK (fonts-noto-cjk)
    family = report_page.page.evaluate("getComputedStyle(document.body).fontFamily")
    assert "Noto Sans CJK SC" in family
    assert report_page.page.evaluate("document.fonts.check('16px \"Noto Sans CJK SC\"', '自注意力')")


def test_every_plot_is_drawn_with_one_mark_per_data_row(report_page):
    figures = report_page.page.query_selector_all("figure.plot")
    assert len(figures) >= 6       # total, two notebooks, items, discrimination, mistakes, concepts, time
    for figure in figures:
        key = figure.get_attribute("id")
        rows = len(figure.query_selector_all("table.data tbody tr"))
        assert int(figure.get_attribute("data-marks")) == rows, key
        svg = figure.query_selector("svg")
        if rows == 0:
            continue
        box = svg.bounding_box()
        assert box and box["width"] > 200 and box["height"] > 50, (key, box)
        marks = svg.query_selector_all('g.role-mark [role="graphics-symbol"]')  # not the axes
        assert len(marks) == rows, key
        assert figure.query_selector("figcaption").inner_text().strip()
        assert figure.query_selector("p.alt").inner_text().strip()


def test_the_class_counts_are_those_of_the_class(graded_class, report_page):
    counts = report_json(graded_class)["class"]
    assert (counts["students"], counts["submitted"], counts["graded"], counts["not_gradable"],
            counts["not_submitted"], counts["late"]) == (7, 6, 5, 1, 1, 1)
    assert counts["waiting_for_manual_grade"] == 4      # alice, bob, carol, frank: dave's are scored 0
    assert counts["answers_not_given"] == 2
    page = report_page.page
    for key, value in counts.items():
        shown = page.query_selector(f'#class b[data-count="{key}"]')
        if shown is not None:
            assert int(shown.inner_text()) == value, key


def test_misconception_counts_equal_report_json_and_the_gradebook(graded_class, report_page):
    report = report_json(graded_class)
    rows = report_page.page.query_selector_all("table.mistakes tbody tr")
    shown = {(r.query_selector("td.mistake").inner_text().strip(), int(r.query_selector("td[data-count]").inner_text()))
             for r in rows}
    expected = {(m["mistake"], m["count"]) for e in report["misconceptions"] for m in e["mistakes"]}
    assert shown == expected and shown
    by_students = {frozenset(s["student"] for s in m["students"]): m for e in report["misconceptions"]
                   for m in e["mistakes"]}
    assert frozenset({"carol", "dave"}) in by_students      # both divided by d_k
    assert by_students[frozenset({"carol", "dave"})]["share"] == pytest.approx(2 / 5)
    assert any("bob" in s for s in by_students)
    # every student counted under a mistake lost points on that cell in nbgrader's gradebook
    with graded_class.gradebook() as gb:
        for exercise in report["misconceptions"]:
            for mistake in exercise["mistakes"]:
                for entry in mistake["students"]:
                    gid = entry["href"].rsplit("#", 1)[1]
                    grade = gb.find_grade(gid, exercise["notebook"], ASSIGNMENT, entry["student"])
                    assert grade.score < grade.max_score, (entry, mistake["mistake"])


def test_concept_check_options_count_the_wrong_choice(graded_class):
    report = report_json(graded_class)
    item = next(c for c in report["concept_checks"] if c["item"] == "concept check: why the scores are divided by √d_k")
    right, *rest = item["options"]
    assert right["kind"] == "right" and right["count"] == item["n"] - 1 == 4
    distractors = [o for o in rest if o["kind"] == "distractor"]
    assert [o["count"] for o in distractors] == [1] and distractors[0]["option"]


def test_links_to_feedback_pages_resolve(graded_class, report_page):
    hrefs = report_page.page.eval_on_selector_all("a[href*='feedback/']", "els => els.map(e => e.href)")
    assert len(hrefs) >= 10
    for href in set(hrefs):
        url = urlparse(href)
        target = Path(unquote(url.path))
        assert target.is_file(), href
        if url.fragment:
            assert f'id="{url.fragment}"' in target.read_text(), href


def test_the_student_table_sorts_with_javascript(report_page):
    page = report_page.page
    header = page.query_selector("#student-table thead th:nth-child(2)")   # total
    header.click()
    totals = page.eval_on_selector_all("#student-table tbody tr td:nth-child(2)", "els => els.map(e => +e.dataset.v)")
    assert totals == sorted(totals)
    header.click()
    totals = page.eval_on_selector_all("#student-table tbody tr td:nth-child(2)", "els => els.map(e => +e.dataset.v)")
    assert totals == sorted(totals, reverse=True)


def test_the_report_reads_the_same_without_javascript(graded_class, browser):
    visit = Visit(browser, report_path(graded_class), javascript=False)
    try:
        assert visit.errors == [] and visit.network() == []
        page = visit.page
        assert len(page.query_selector_all("#student-table tbody tr")) == len(STUDENTS)
        assert all(svg.bounding_box()["height"] > 50 for svg in page.query_selector_all("figure.plot svg"))
    finally:
        visit.close()


def test_feedback_pages_share_the_look_and_link_only_to_what_the_student_receives(graded_class, browser):
    pages = sorted((graded_class.root / "feedback").glob(f"*/{ASSIGNMENT}/*.html"))
    assert len(pages) == 2 * 5 + 2      # five graded students and erin, two notebooks each
    for path in pages:
        student, notebook = path.parent.parent.name, path.stem
        visit = Visit(browser, path)
        try:
            assert visit.errors == [] and visit.network() == [], path
            page = visit.page
            assert "Noto Sans CJK SC" in page.evaluate("getComputedStyle(document.body).fontFamily")
            # the page a student is handed: no link up to the class report, only its own parts and siblings
            links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
            assert all(link.startswith("#") or "/" not in link for link in links), links
            assert not page.query_selector("a[rel=up]"), path
            assert re.search(r"Score: \d+(\.\d{1,2})? / \d+", page.inner_text("#summary"))
            # the notebook's own title, in the student's language, not its file's name
            if student == "frank":
                assert page.inner_text("h1") == {"self_attention": "Self-attention from scratch",
                                                 "quiz": "Self-attention: thought questions"}[notebook]
            assert page.inner_text("h1") not in (ASSIGNMENT, notebook, f"{ASSIGNMENT} — {notebook}")
            if student == "frank":    # the submission time, to the second
                assert "submitted 2026-11-27 09:00:00 UTC" in page.inner_text("p.sub")
            visit.screenshot(f"feedback-{student}-{notebook}")
        finally:
            visit.close()


def test_feedback_says_not_answered_and_names_the_exercise(graded_class, browser):
    visit = Visit(browser, graded_class.root / "feedback" / "dave" / ASSIGNMENT / "quiz.html")
    try:
        for gid in MANUAL:
            section = visit.page.inner_text(f"section#{gid}")
            assert "not answered" in section and "waiting" not in section
        heading = visit.page.inner_text("section#test_tq2 h2")
        assert heading.startswith("Question 2") and "test_tq2" in heading
        summary = visit.page.inner_text("#by-exercise")
        assert "not answered" in summary
    finally:
        visit.close()
    with graded_class.gradebook() as gb:
        for gid in MANUAL:
            grade = gb.find_grade(gid, "quiz", ASSIGNMENT, "dave")
            assert grade.score == 0 and not grade.needs_manual_grade
        assert gb.find_grade("tq1_explain", "quiz", ASSIGNMENT, "alice").needs_manual_grade


def test_the_integrity_page_shows_both_sides_of_a_copy_within_the_page(browser, tmp_path):
    """integrity.html side by side: both cells of a pair in view, however long their lines
    (each scrolls inside its own box), the shared passages marked, nothing fetched."""
    import integrity_class
    from gradekit.course import Course
    from gradekit.integrity.detect import detect
    from gradekit.integrity.report import render_html

    klass = integrity_class.build(tmp_path / "course", honest=8, plants={"exercise": 1}, seed=3)
    (pair,) = klass.planted_pairs()
    findings = detect(Course.load(klass.root), integrity_class.ASSIGNMENT)
    assert sorted(pair) in [p["students"] for p in findings.pairs]
    page = tmp_path / "integrity.html"
    page.write_text(render_html(findings))
    visit = Visit(browser, page, javascript=False)
    try:
        width = visit.page.evaluate("document.documentElement.clientWidth")
        assert visit.page.evaluate("document.documentElement.scrollWidth") <= width
        boxes = [visit.page.locator(".side pre").nth(i).bounding_box()
                 for i in range(visit.page.locator(".side pre").count())]
        assert boxes and all(box["x"] >= 0 and box["x"] + box["width"] <= width for box in boxes), boxes
        assert visit.page.locator(".side mark").count() > 0
        assert visit.network() == [] and visit.errors == []
        visit.screenshot("integrity")
        visit.page.set_viewport_size({"width": 400, "height": 900})      # a phone: one column, no overflow
        assert visit.page.evaluate("document.documentElement.scrollWidth") <= 400
        sides = visit.page.locator(".side pre")
        left, right = sides.nth(0).bounding_box(), sides.nth(1).bounding_box()
        assert right["y"] >= left["y"] + left["height"]
    finally:
        visit.close()
