"""gradekit.cli.main: user mistakes, and the pipeline as an instructor runs it with nbgrader alongside."""

from __future__ import annotations

import csv
import html
import io
import re
import subprocess
import sys
import textwrap

import nbformat
import pytest

from conftest import ASSIGNMENT, NOTEBOOK, SECRET, STUDENTS, VENV_BIN, CourseDir, with_solutions

pytestmark = pytest.mark.e2e  # the whole pipeline: `pytest -m "not e2e"` leaves it out

GRADEKIT = str(VENV_BIN / "gradekit")
NBGRADER = str(VENV_BIN / "nbgrader")

WRONG_AXIS = textwrap.dedent('''
    def softmax(x, axis=-1):
        x = np.asarray(x, dtype=float)
        e = np.exp(x - np.max(x, axis=0, keepdims=True))
        return e / np.sum(e, axis=0, keepdims=True)
''')


def _one_line_error(capsys, code: int, expected: int = 2) -> str:
    assert code == expected
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("gradekit: ")
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    return err


# -- user mistakes ------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["generate", "nope"],
    ["autograde", "nope"],
    ["answer-key", "nope", "--student", "alice", "--out", "key"],
])
def test_unknown_assignment(course, capsys, args):
    err = _one_line_error(capsys, course.cli(*args))
    assert "unknown assignment 'nope'" in err and ASSIGNMENT in err  # names the known ones


@pytest.mark.parametrize("args", [
    ["generate", ASSIGNMENT, "--student", "ghost"],
    ["answer-key", ASSIGNMENT, "--student", "ghost", "--out", "key"],
    ["autograde", ASSIGNMENT, "--student", "ghost"],
    ["feedback", ASSIGNMENT, "--student", "ghost"],
])
def test_unknown_student(course, capsys, args):
    course.generate("alice")
    capsys.readouterr()
    err = _one_line_error(capsys, course.cli(*args))
    assert "'ghost'" in err and "nbgrader db student add ghost" in err


def test_invalid_student_id(course, capsys):
    course.add_students("..")
    err = _one_line_error(capsys, course.cli("answer-key", ASSIGNMENT, "--student", "..", "--out", "key"))
    assert "invalid student id" in err


def test_missing_submission(course, capsys):
    course.generate()
    capsys.readouterr()
    err = _one_line_error(capsys, course.cli("autograde", ASSIGNMENT, "--student", "alice"))
    assert "no submission for alice" in err


def test_nothing_to_grade(course, capsys):
    course.generate()
    capsys.readouterr()
    err = _one_line_error(capsys, course.cli("autograde", ASSIGNMENT))
    assert "nothing to grade" in err


def test_autograde_before_generate(course, capsys):
    course.submit("alice", course.answer_key("alice"))
    capsys.readouterr()
    err = _one_line_error(capsys, course.cli("autograde", ASSIGNMENT))
    assert "gradekit generate" in err


def test_feedback_before_autograde(course, capsys):
    course.generate()
    capsys.readouterr()
    err = _one_line_error(capsys, course.cli("feedback", ASSIGNMENT))
    assert "autograde" in err


@pytest.mark.parametrize("command", [["generate", ASSIGNMENT], ["autograde", ASSIGNMENT],
                                     ["feedback", ASSIGNMENT]])
def test_not_a_course_dir(tmp_path, capsys, command):
    from gradekit.cli.main import main

    err = _one_line_error(capsys, main(["--course", str(tmp_path), *command]))
    assert "not a course directory" in err and str(tmp_path) in err and "--course DIR" in err


def test_inside_a_course_the_error_points_to_it(course, capsys):
    from gradekit.cli.main import main

    err = _one_line_error(capsys, main(["--course", str(course.root / "source"), "autograde", ASSIGNMENT]))
    assert f"did you mean the course in {course.root.resolve()}?" in err, err


def test_broken_config(course, capsys):
    (course.root / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.course_id = \n")
    err = _one_line_error(capsys, course.cli("generate", ASSIGNMENT), expected=3)  # the course is broken
    assert "nbgrader_config.py" in err


def test_check_json_on_a_broken_course_is_json_too(course):
    """A script reading `gradekit check --json`'s stdout gets one JSON object, also when the check
    cannot run: the error in it, the same one line on stderr, the same exit status."""
    import json

    (course.root / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.course_id = \n")
    proc = course.run(GRADEKIT, "check", ASSIGNMENT, "--json", check=False)
    assert proc.returncode == 3 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    printed = json.loads(proc.stdout)
    assert printed["ok"] is False and printed["exit"] == 3 and printed["assignment"] == ASSIGNMENT
    assert proc.stderr.strip() == f"gradekit: {printed['error']}" and "nbgrader_config.py" in printed["error"]
    (course.root / "nbgrader_config.py").write_text("c = get_config()\n")
    unknown = course.run(GRADEKIT, "check", "nope", "--json", check=False)
    assert unknown.returncode == 2 and json.loads(unknown.stdout)["error"].startswith("unknown assignment 'nope'")


def test_mistakes_through_the_installed_command(tmp_path, course):
    """The real entry point: exit status 2, one line on stderr, no traceback."""
    for args, cwd, needle in [(["autograde", ASSIGNMENT], tmp_path, "not a course directory"),
                              (["autograde", "nope"], course.root, "unknown assignment"),
                              (["answer-key", ASSIGNMENT, "--student", "ghost", "--out", "k"], course.root, "ghost")]:
        proc = CourseDir(cwd).run(GRADEKIT, *args, check=False)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr
        assert "Traceback" not in proc.stderr


def test_version_is_the_installed_one(tmp_path):
    """`gradekit --version` (anywhere, no course needed) prints the version pip installed, pyproject.toml's."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    proc = subprocess.run([GRADEKIT, "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"gradekit {project['project']['version']}\n", "")


def test_fresh_course_without_venv_on_path(course):
    """nbgrader runs `alembic` to make a new gradebook: .venv/bin/gradekit must work un-activated."""
    (course.root / "gradebook.db").unlink()
    proc = course.run(GRADEKIT, "generate", ASSIGNMENT, check=False,
                      env={"PATH": "/usr/bin:/bin", "GRADEKIT_SECRET": SECRET, "HOME": str(course.root)})
    assert "Traceback" not in proc.stderr, proc.stderr[-500:]
    assert (course.root / "gradebook.db").is_file()
    # the new gradebook has nobody in it: one line that says how to add the class, not "0 notebooks"
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "no students in the gradebook" in proc.stderr and "nbgrader db student" in proc.stderr


# -- the pipeline with nbgrader alongside ---------------------------------------------------

@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """A course graded by the installed command: key, blank, one bug, a broken file, no submission."""
    course = CourseDir.create(tmp_path_factory.mktemp("cli") / "course")
    course.run(GRADEKIT, "generate", ASSIGNMENT)
    alice, bob, carol, dave = STUDENTS[:4]
    course.submit(alice, course.answer_key(alice))
    course.submit(bob, course.release(bob))
    course.submit(carol, with_solutions(course.answer_key(carol), {"softmax": WRONG_AXIS}))
    course.submit(dave, b"")
    (course.submission_path(alice).parent / "timestamp.txt").write_text("2026-11-20 10:00:00.000000 UTC")
    graded = course.run(GRADEKIT, "autograde", ASSIGNMENT, "--jobs", "2")
    feedback = course.run(GRADEKIT, "feedback", ASSIGNMENT)
    return course, graded, feedback


def test_autograde_output(pipeline):
    course, graded, _ = pipeline
    for student in STUDENTS[:4]:
        assert student in graded.stdout
    assert "20/20" in graded.stdout
    assert STUDENTS[4] not in graded.stdout  # erin submitted nothing
    assert "Traceback" not in graded.stderr


def test_gradebook_scores(pipeline):
    course, _, _ = pipeline
    alice, bob, carol, dave = STUDENTS[:4]
    with course.gradebook() as gb:
        scores = {s: gb.find_submission(ASSIGNMENT, s).score for s in (alice, bob, carol, dave)}
        assert scores[alice] == 20 and scores[bob] == 0 and scores[dave] == 0
        assert 0 < scores[carol] < 20
        nb = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, carol)
        by_cell = {g.name: g.score for g in nb.grades}
        assert by_cell["test_softmax"] < 2 and by_cell["test_project_qkv"] == 2
        assert gb.find_submission(ASSIGNMENT, alice).timestamp.year == 2026
        with pytest.raises(Exception):
            gb.find_submission(ASSIGNMENT, STUDENTS[4])


def test_nbgrader_export_shows_the_grades(pipeline):
    course, _, _ = pipeline
    course.run(NBGRADER, "export")
    rows = list(csv.DictReader(io.StringIO((course.root / "grades.csv").read_text())))
    by_student = {r["student_id"]: r for r in rows if r["assignment"] == ASSIGNMENT}
    alice, bob, carol, dave = STUDENTS[:4]
    assert float(by_student[alice]["score"]) == 20
    assert float(by_student[alice]["max_score"]) == 20
    assert float(by_student[bob]["score"]) == 0
    assert 0 < float(by_student[carol]["score"]) < 20
    assert float(by_student[dave]["score"]) == 0
    assert float(by_student[STUDENTS[4]]["score"]) == 0  # no submission: nbgrader's zero


def test_nbgrader_db_student_list(pipeline):
    course, _, _ = pipeline
    proc = course.run(NBGRADER, "db", "student", "list")
    for student in STUDENTS:
        assert student in proc.stdout


def test_feedback_pages(pipeline):
    course, _, feedback = pipeline
    assert "feedback page" in feedback.stdout
    for student in STUDENTS[:4]:
        page = course.root / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html"
        assert page.is_file(), student
        text = page.read_text()
        assert student in text and "Score" in text
    assert not (course.root / "feedback" / STUDENTS[4]).exists()


def test_feedback_shows_failed_checks_and_no_expected_values(pipeline):
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    course, _, _ = pipeline
    collapsed = 0
    for student in STUDENTS[1:3]:
        page = (course.root / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()
        result = course.results_json(student)
        failed = [k["message"] for c in result["notebooks"][0]["cells"] for k in c["checks"] if not k["passed"]]
        assert failed
        unescaped = html.unescape(page)
        for cell in result["notebooks"][0]["cells"]:
            # failed checks that only say "N of M values differ", two or more of one tolerance: one line
            # ("K checks: values differ ..."), the first five cases listed, not their messages one by one
            together: dict[tuple, list[dict]] = {}
            for check in cell["checks"]:
                if not check["passed"] and check["differs"]:
                    together.setdefault(tuple(check["tolerance"]), []).append(check)
            together = {tol: group for tol, group in together.items() if len(group) > 1}
            for (rtol, atol), group in together.items():
                summary = f"{len(group)} checks: values differ from the reference (tolerance rtol={rtol:g}, atol={atol:g}):"
                assert summary in unescaped, summary
                collapsed += 1
                for check in group[:5]:
                    for what, wrong, size in check["differs"]:
                        assert f"{what} ({wrong} of {size} values)" in unescaped, check["message"]
            grouped = {id(c) for group in together.values() for c in group}
            for check in cell["checks"]:
                if not check["passed"] and id(check) not in grouped:
                    assert check["message"] in unescaped, check["message"]
        # the diagnosis, weighed over the cell's checks, is on the page and in the graded notebook
        notes = [n for c in result["notebooks"][0]["cells"] for f in c["findings"] for n in f["mistakes"]]
        if student == STUDENTS[2]:  # carol's softmax always normalises axis 0
            assert notes == ["normalised along axis 0 whatever `axis` says"] * 2, notes
            assert unescaped.count("Likely mistake: normalised along axis 0 whatever `axis` says") == 2
            graded = (course.root / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text()
            assert "Likely mistake: normalised along axis 0" in graded
        else:
            assert notes == [] and "Likely mistake" not in unescaped
        # no expected values: not the student's reference numbers, not array reprs
        variant = build_variant(course.course, AssignmentSource.load(course.course, ASSIGNMENT), student)
        for name in ("hand_weights", "hand_output", "hand_scores"):
            for row in variant.params[name]:
                for value in row:
                    assert repr(value) not in unescaped and f"{value:.6f}" not in unescaped, (name, value)
        assert "array([" not in unescaped
        assert not re.search(r"\d\.\d{7,}", unescaped)
        assert "assert " not in unescaped
    assert collapsed, "no cell of bob's or carol's had two checks that only differ in value: nothing collapsed"


def test_feedback_for_carol_names_the_mistake(pipeline):
    course, _, _ = pipeline
    page = html.unescape((course.root / "feedback" / STUDENTS[2] / ASSIGNMENT / f"{NOTEBOOK}.html").read_text())
    softmax_section = page[page.index('id="test_softmax"'):page.index('id="test_softmax_stability"')]
    assert "axis" in softmax_section
    assert "np.max(x, axis=0" in softmax_section  # her own code is shown


def test_feedback_for_a_broken_file(pipeline):
    course, _, _ = pipeline
    page = html.unescape((course.root / "feedback" / STUDENTS[3] / ASSIGNMENT / f"{NOTEBOOK}.html").read_text())
    assert "Not graded" in page and "empty" in page


def test_autograded_notebook_shows_hidden_test_results(pipeline):
    course, _, _ = pipeline
    nb = nbformat.read(str(course.root / "autograded" / STUDENTS[2] / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
                       as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_softmax")
    text = "".join(o.get("text", "") for o in cell.outputs)
    assert "Hidden tests:" in text and "[FAIL]" in text


def test_regrading_is_stable(pipeline):
    course, _, _ = pipeline
    before = {s: course.results_json(s)["notebooks"][0]["cells"] for s in STUDENTS[:3]}
    again = course.run(GRADEKIT, "autograde", ASSIGNMENT, "--jobs", "2")
    after = {s: course.results_json(s)["notebooks"][0]["cells"] for s in STUDENTS[:3]}
    # nothing changed: the progress lines say so rather than look like a new grading
    lines = [line for line in again.stdout.splitlines() if line.startswith("[")]
    assert len(lines) == 4 and all("as before: nothing changed" in line for line in lines), again.stdout
    assert {s: [c["score"] for c in cells] for s, cells in before.items()} == \
        {s: [c["score"] for c in cells] for s, cells in after.items()}


AUTOGRADE_TWO_COURSES = textwrap.dedent('''
    import sys
    from gradekit.grading.options import Options
    from gradekit.grading.pipeline import Pipeline
    from gradekit.course import Course
    for root in sys.argv[1:]:
        result = Pipeline(Course.load(root), "self_attention", Options()).grade("alice")
        print(root, result.score)
''')


def test_autograde_two_courses_in_one_process(course_factory):
    one, two = course_factory(name="one"), course_factory(name="two")
    for c in (one, two):
        c.generate("alice")
        c.submit("alice", c.answer_key("alice"))
    proc = one.run(sys.executable, "-c", AUTOGRADE_TWO_COURSES, str(one.root), str(two.root), check=False)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stdout.split() == [str(one.root), "20.0", str(two.root), "20.0"]


def test_the_command_line_starts_light():
    """Every verb's module is imported to build the parser: none may import the heavy libraries at
    module level (nbformat alone costs a command a fifth of a second before it knows its work)."""
    heavy = {"nbformat", "numpy", "nbgrader", "pytest", "jinja2", "traitlets", "sqlalchemy", "rich", "jsonschema",
             "dask", "vl_convert", "sklearn", "scipy"}
    code = "import sys, gradekit.cli.main; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    assert not loaded & heavy, sorted(loaded & heavy)


def test_the_export_says_which_totals_count_what_students_do_not_see_yet(course_factory, tmp_path):
    """Before the due date a page leaves the hidden quiz out; the LMS's totals count it: export says so,
    with what it is worth, and nothing once the due date has passed."""
    import datetime as dt
    import json

    course = course_factory(("alice",), quiz=True)
    course.generate()
    quiz = json.loads((course.root / "source" / ASSIGNMENT / "quiz.ipynb").read_text())
    worth = sum(float(c["metadata"]["nbgrader"].get("points", 0) or 0) for c in quiz["cells"]
                if c.get("metadata", {}).get("nbgrader", {}).get("grade"))
    due = dt.datetime.now(dt.UTC) + dt.timedelta(days=3)
    course.run(NBGRADER, "db", "assignment", "add", ASSIGNMENT, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
    out = course.run(GRADEKIT, "export", "--format", "canvas", "--out", str(tmp_path / "c.csv")).stdout
    assert (f"{ASSIGNMENT}: the totals count quiz ({worth:g} points), which students do not see until the due "
            f"date ({due:%Y-%m-%d %H:%M} UTC)") in out, out
    past = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    course.run(NBGRADER, "db", "assignment", "add", ASSIGNMENT, f"--duedate={past:%Y-%m-%d %H:%M:%S} UTC")
    out = course.run(GRADEKIT, "export", "--format", "canvas", "--out", str(tmp_path / "c.csv")).stdout
    assert "do not see" not in out, out


def test_the_demo_runs_on_a_course_and_says_so_elsewhere(tmp_path, capsys):
    from gradekit.cli.main import main

    assert main(["--course", str(tmp_path), "demo", "--students", "2"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no course directory" in err[0] and "gradekit quickstart DIR" in err[0]
    assert list(tmp_path.iterdir()) == []
