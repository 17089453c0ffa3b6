"""The grading page in a real browser (Playwright driving Debian's chromium), on a class graded for real.

Nine students hand in the quiz (answer keys, with their own free text for tq1_explain, of four
kinds in English and Chinese) and it is autograded through the installed commands. Then, as
an instructor: ``gradekit grade`` serves the page (asking for its token), a rubric of three
items is made with the new-item form, and the question is graded by groups (robot.py: the
typical answer's item on each group, each misfit fixed by hand). Checked on the way:

1. the gradebook holds each student's manual score and comment, as formgrader writes them;
2. editing an item's points changes every student who has it, on the page and in the gradebook;
3. undo takes it back;
4. formgrader's own page shows the same scores, and ``nbgrader export`` the same totals;
5. the feedback pages list the items, in Chinese for a student who reads Chinese;
6. ``autograde --force`` keeps every manual grade.

Screenshots of the page are kept in tests/artifacts/.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
import ports

from conftest import ASSIGNMENT, SECRET, VENV_BIN, CourseDir
from manual.robot import Robot

pytestmark = [pytest.mark.e2e]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

ANSWERS = {  # student: (language, kind, answer to tq1_explain)
    "alice": ("en", "correct", "Q and K decide the attention weights; V decides the content that is mixed."),
    "bob": ("en", "correct", "The queries and keys decide the weights, and the values decide what gets mixed."),
    "carol": ("zh", "correct", "Q 和 K 决定注意力权重，V 决定混合进来的内容。"),
    "dave": ("en", "swapped", "V decides the attention weights; Q and K decide the content that is mixed."),
    "erin": ("en", "swapped", "The values decide the weights, and the queries and keys decide what gets mixed."),
    "frank": ("en", "half", "Q and K decide the attention weights."),
    "grace": ("zh", "half", "Q 和 K 决定注意力权重。"),
    "heidi": ("zh", "half", "Q 和 K 决定注意力权重。"),
    "ivan": ("en", "empty", None),
}
RUBRIC = [  # kind, points taken off, the sentence, its Chinese
    ("half", 1, "V's role is missing: V decides what is mixed into the output.",
     "没有说 V 的作用：V 决定混合进输出的内容。"),
    ("swapped", 2, "The roles are swapped: Q and K decide the weights, V the content.",
     "角色反了：Q 和 K 决定权重，V 决定内容。"),
    ("empty", 2, "Not answered.", "没有作答。"),
]
EXPECTED = {"correct": 2.0, "half": 1.0, "swapped": 0.0, "empty": 0.0}


def _free_port() -> int:
    return ports.free_port()


def _env() -> dict:
    return dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}", GRADEKIT_SECRET=SECRET)


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    course = CourseDir.create(tmp_path_factory.mktemp("grade") / "course", tuple(ANSWERS), quiz=True)
    (course.root / "languages.csv").write_text(
        "student_id,language\n" + "".join(f"{s},{lang}\n" for s, (lang, _, _) in ANSWERS.items()))
    course.generate()
    for student, (_, _, text) in ANSWERS.items():
        out = course.root / "keys" / student
        assert course.cli("answer-key", ASSIGNMENT, "--student", student, "--out", str(out)) == 0
        folder = course.root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True, exist_ok=True)
        quiz = nbformat.read(str(out / "quiz.ipynb"), as_version=4)
        release = nbformat.read(str(course.release_path(student).parent / "quiz.ipynb"), as_version=4)
        stub = {c.metadata["nbgrader"]["grade_id"]: c.source for c in release.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "tq1_explain"}["tq1_explain"]
        for cell in quiz.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "tq1_explain":
                cell.source = text if text is not None else stub
        nbformat.write(quiz, str(folder / "quiz.ipynb"))
        (folder / "timestamp.txt").write_text("2026-11-20 10:00:00 UTC")
    course.run(str(VENV_BIN / "gradekit"), "autograde", ASSIGNMENT, "--jobs", "2")
    ARTIFACTS.mkdir(exist_ok=True)
    return course


@pytest.fixture(scope="module")
def server(graded_class):
    proc = subprocess.Popen([str(VENV_BIN / "gradekit"), "grade", ASSIGNMENT, "--port", str(_free_port()),
                             "--language", "en", "--grader", "tester"], cwd=graded_class.root, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    url = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
    assert url, line
    yield url.group(1)
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def page(browser, server):
    context = browser.new_context(viewport={"width": 1500, "height": 950})
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(server)
    page.wait_for_selector("body[data-ready='1']")
    page.errors, page.requests = errors, requests  # type: ignore[attr-defined]
    yield page
    context.close()


def _manual(course: CourseDir) -> dict[str, tuple[float | None, str | None]]:
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        out = {}
        for student in ANSWERS:
            grade = gb.find_grade("tq1_explain", "quiz", ASSIGNMENT, student)
            comment = gb.find_comment("tq1_explain", "quiz", ASSIGNMENT, student)
            out[student] = (grade.manual_score, comment.manual_comment)
        return out


def test_the_token_is_asked_for(server):
    import urllib.error
    import urllib.request

    bare = server.split("?")[0]
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(bare + "api/state")
    assert refused.value.code == 403


def test_grade_a_question_by_groups(graded_class, page):
    kinds = {s: kind for s, (_, kind, _) in ANSWERS.items()}
    robot = Robot(page, kinds, {k: text for k, _, text, _ in RUBRIC})
    groups = robot.group_ids()
    sizes = page.eval_on_selector_all(".g .size", "els => els.map(e => parseInt(e.textContent))")
    assert sizes and sizes == sorted(sizes, reverse=True) and sum(sizes) == len(ANSWERS)  # largest first
    robot.make_rubric(RUBRIC)
    page.screenshot(path=str(ARTIFACTS / "grade-rubric.png"))
    robot.grade_question()
    assert page.errors == []
    assert all(url.startswith(server_url(page)) for url in page.requests)  # nothing fetched from elsewhere
    got = _manual(graded_class)
    for student, (_, kind, _) in ANSWERS.items():
        assert got[student][0] == EXPECTED[kind], (student, kind, got[student])
    assert got["frank"][1] == "−1: " + RUBRIC[0][2]
    assert got["grace"][1] == "−1: " + RUBRIC[0][3]          # the comment in the student's language
    assert got["alice"][1] is None
    assert robot.actions < 2 * len(ANSWERS) + 13, robot.actions  # the rubric's 13, then fewer than 2 an answer
    page.click(f'.g[data-group="{groups[0]}"]')
    page.wait_for_selector("body[data-busy='0']", state="attached")
    page.screenshot(path=str(ARTIFACTS / "grade-page.png"))


def server_url(page) -> str:
    return page.url.split("?")[0]


def _scores_on_page(page) -> dict[str, str]:
    return dict(page.eval_on_selector_all(".ans", "els => els.map(e => [e.dataset.student, "
                                                   "e.querySelector('.score').textContent])"))


def _open_group_of(page, student: str) -> None:
    for gid in page.eval_on_selector_all(".g", "els => els.map(e => e.dataset.group)"):
        page.click(f'.g[data-group="{gid}"]')
        page.wait_for_selector("body[data-busy='0']", state="attached")
        if page.locator(f'.ans[data-student="{student}"]').count():
            return
    raise AssertionError(f"{student} is in no group")


def test_editing_an_item_changes_everyone_who_has_it_and_undo_takes_it_back(graded_class, page):
    half = [s for s, (_, kind, _) in ANSWERS.items() if kind == "half"]
    row = page.locator("#items .item").first
    row.locator("button.edit").click()
    form = page.locator("#items .form")
    form.locator("input[name=points]").fill("0.5")
    form.locator("button.save").click()
    page.wait_for_selector("#items .item:first-child:has-text('−0.5')")
    page.wait_for_selector("body[data-busy='0']", state="attached")
    assert "−0.5" in page.locator("#items .item").first.inner_text()
    got = _manual(graded_class)
    assert all(got[s][0] == 1.5 for s in half), got
    assert got["frank"][1] == "−0.5: " + RUBRIC[0][2]
    assert all(got[s][0] == EXPECTED[kind] for s, (_, kind, _) in ANSWERS.items() if kind != "half")
    _open_group_of(page, "frank")
    assert "1.5 / 2" in _scores_on_page(page)["frank"]
    page.keyboard.press("u")
    page.wait_for_selector("#items .item:first-child:has-text('−1')")
    page.wait_for_selector("body[data-busy='0']", state="attached")
    assert "1 / 2" in _scores_on_page(page)["frank"]
    got = _manual(graded_class)
    assert all(got[s][0] == 1.0 for s in half), got
    assert got["frank"][1] == "−1: " + RUBRIC[0][2]


def _group_sizes(page) -> list[int]:
    return page.eval_on_selector_all(".g .size", "els => els.map(e => parseInt(e.textContent))")


def test_split_move_merge_and_undo(page):
    idle = "body[data-busy='0']"
    before = _group_sizes(page)
    page.click(f'.g[data-group="{page.eval_on_selector_all(".g", "els => els.map(e => e.dataset.group)")[0]}"]')
    page.wait_for_selector(idle, state="attached")
    students = page.eval_on_selector_all(".ans", "els => els.map(e => e.dataset.student)")
    assert len(students) >= 3
    for student in students[-2:]:
        page.click(f'.ans[data-student="{student}"] input[type=checkbox]')
    page.click("#split")                               # the two ticked answers become a group of their own
    page.wait_for_selector(idle, state="attached")
    assert sorted(_group_sizes(page)) == sorted(_split(before, 2))
    assert sorted(page.eval_on_selector_all(".ans", "els => els.map(e => e.dataset.student)")) == sorted(students[-2:])
    page.click(f'.ans[data-student="{students[-1]}"] input[type=checkbox]')
    page.select_option("#move-to", index=1)            # one of them moved to another group
    page.wait_for_selector(idle, state="attached")
    assert len(_group_sizes(page)) == len(before) + 1
    page.keyboard.press("u")                           # the move taken back
    page.wait_for_selector(idle, state="attached")
    page.keyboard.press("u")                           # and the split
    page.wait_for_selector(idle, state="attached")
    assert _group_sizes(page) == before
    first, second = page.eval_on_selector_all(".g", "els => els.map(e => e.dataset.group)")[:2]
    page.click(f'.g[data-group="{second}"]')
    page.wait_for_selector(idle, state="attached")
    page.select_option("#merge-with", first)           # two groups merged into one
    page.wait_for_selector(idle, state="attached")
    assert len(_group_sizes(page)) == len(before) - 1 and max(_group_sizes(page)) == before[0] + before[1]
    page.keyboard.press("u")
    page.wait_for_selector(idle, state="attached")
    assert _group_sizes(page) == before


def _split(sizes: list[int], n: int) -> list[int]:
    """The group sizes after taking n answers out of the largest group into a new one."""
    out = sorted(sizes, reverse=True)
    out[0] -= n
    return out + [n]


def test_the_context_shows_the_students_numbers_and_named_mistakes(page):
    page.locator(".ans button.ctx").first.click()
    page.wait_for_selector("#context:not([hidden]) #numbers tr")
    assert page.locator("#numbers tr").count() > 3
    page.click("#close-context")


def test_formgrader_and_nbgrader_export_agree(graded_class, browser):
    from nbgrader.api import Gradebook

    course = graded_class
    course.run(str(VENV_BIN / "nbgrader"), "export")
    with open(course.root / "grades.csv", newline="") as fh:
        exported = {r["student_id"]: float(r["score"]) for r in csv.DictReader(fh) if r["assignment"] == ASSIGNMENT}
    with Gradebook(course.db_url) as gb:
        totals = {s: gb.find_submission(ASSIGNMENT, s).score for s in ANSWERS}
        ids = {s: gb.find_submission_notebook("quiz", ASSIGNMENT, s).id for s in ("frank", "dave", "alice")}
    assert exported == pytest.approx(totals)
    assert totals["alice"] - totals["frank"] == pytest.approx(1.0)   # the same autograded quiz, 1 point off
    port, token = _free_port(), "formgrader-test-token"
    proc = subprocess.Popen([str(VENV_BIN / "jupyter"), "server", "--no-browser", f"--port={port}",
                             "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
                             f"--ServerApp.root_dir={course.root}"] + (["--allow-root"] if os.geteuid() == 0 else []),
                            cwd=course.root, env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        page = context.new_page()
        deadline = time.time() + 60
        while True:
            try:
                page.goto(f"http://127.0.0.1:{port}/formgrader?token={token}")
                break
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)
        for student, expected in (("frank", 1.0), ("dave", 0.0), ("alice", 2.0)):
            page.goto(f"http://127.0.0.1:{port}/formgrader/submissions/{ids[student]}")
            score = page.locator("input.score#tq1_explain")
            page.wait_for_function("document.querySelector('input.score#tq1_explain') && "
                                   "document.querySelector('input.score#tq1_explain').value !== ''")
            assert float(score.input_value()) == expected, student
            if student == "frank":
                page.screenshot(path=str(ARTIFACTS / "grade-formgrader.png"))
        context.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_feedback_page_shows_the_items(graded_class, browser):
    course = graded_class
    course.run(str(VENV_BIN / "gradekit"), "feedback", ASSIGNMENT)
    context = browser.new_context()
    page = context.new_page()
    page.goto((course.root / "feedback" / "grace" / ASSIGNMENT / "quiz.html").as_uri())
    items = page.locator("#tq1_explain .rubric-items li").all_inner_texts()
    assert items == ["−1 " + RUBRIC[0][3]]
    page.goto((course.root / "feedback" / "frank" / ASSIGNMENT / "quiz.html").as_uri())
    assert page.locator("#tq1_explain .rubric-items li").all_inner_texts() == ["−1 " + RUBRIC[0][2]]
    page.locator("#tq1_explain").screenshot(path=str(ARTIFACTS / "grade-feedback.png"))
    context.close()


def test_the_report_counts_the_items(graded_class):
    import json

    course = graded_class
    course.run(str(VENV_BIN / "gradekit"), "report", ASSIGNMENT)
    report = json.loads((course.root / "reports" / ASSIGNMENT / "report.json").read_text())
    rubric = {q["cell"]: q for q in report["rubrics"]}["tq1_explain"]
    counts = {i["text"]: i["count"] for i in rubric["items"]}
    assert counts == {RUBRIC[0][2]: 3, RUBRIC[1][2]: 2, RUBRIC[2][2]: 1}
    assert rubric["graded"] == len(ANSWERS)


def test_autograde_keeps_the_manual_grades(graded_class):
    before = _manual(graded_class)
    graded_class.run(str(VENV_BIN / "gradekit"), "autograde", ASSIGNMENT, "--force", "--jobs", "2")
    assert _manual(graded_class) == before


def test_the_page_in_chinese(graded_class, browser):
    proc = subprocess.Popen([str(VENV_BIN / "gradekit"), "grade", ASSIGNMENT, "--port", str(_free_port()),
                             "--language", "zh"], cwd=graded_class.root, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = re.search(r"open (http://\S+)", proc.stdout.readline()).group(1)
        context = browser.new_context(viewport={"width": 1500, "height": 950})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("body[data-ready='1'] .ans")
        assert page.locator("#l-groups").inner_text() == "答案分组"
        assert page.locator("#l-rubric").inner_text() == "评分细则"
        assert page.locator("#grade-as-is").inner_text() == "按现状评分（Enter）"
        assert page.get_attribute("html", "lang") == "zh-CN"
        assert errors == []
        page.screenshot(path=str(ARTIFACTS / "grade-page-zh.png"))
        context.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
