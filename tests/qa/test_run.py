"""`gradekit check`: passes on a fresh `gradekit new` assignment, and fails on broken graders --
one that passes everything, one that fails everything, one that prints the expected array --
and on a template with an undefined variable; and every shipped assignment passes its own."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, VENV_BIN
from gradekit.course import Course
from gradekit.sandbox.bwrap import bwrap_path

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")]

GRADEKIT = str(VENV_BIN / "gradekit")
A = "probe"


@pytest.fixture
def new_course(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(REPO / "nbgrader_config.py", root)
    assert _run(root, "new", A).returncode == 0
    return root


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([GRADEKIT, *args], cwd=root, capture_output=True, text=True, timeout=600)


def _check(root: Path, students: int = 3) -> tuple[int, dict[str, str]]:
    proc = _run(root, "check", A, "--students", str(students))
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.returncode, table_rows(proc.stdout)


def table_rows(printed: str) -> dict[str, str]:
    """{check: "status detail"} of the printed table, whose check and detail wrap onto the lines below."""
    parts: list[tuple[list[str], str, list[str]]] = []
    for line in printed.splitlines():
        line = line.strip()
        if not line.startswith(("│", "┃")):
            continue
        cells = [c.strip() for c in line[1:-1].replace("┃", "│").split("│")]
        if len(cells) == 3 and cells[1] in ("ok", "FAIL", "info", "warn"):
            parts.append(([cells[0]], cells[1], [cells[2]]))
        elif len(cells) == 3 and not cells[1] and parts:   # the row goes on
            parts[-1][0].append(cells[0])
            parts[-1][2].append(cells[2])
    return {" ".join(p for p in check if p): f"{status} " + " ".join(p for p in detail if p)
            for check, status, detail in parts}


def test_the_table_fits_100_columns_or_the_window_when_not_a_terminal(monkeypatch, capsys):
    """Printed to a pipe or a log, the table wraps to $COLUMNS, else 100 columns (it was 140), and
    reads back whole: every check's name and detail, wrapped between words."""
    from gradekit.qa.rows import CheckReport, Row, print_report

    report = CheckReport(A, 5, seconds=4.7, gradings=43)
    long = ("week2 has no due date in the gradebook: under gradekit serve nothing waits for it, and whether "
            "test_q1 is right would show at once. Set one: nbgrader db assignment add week2")
    report.rows += [Row("untouched release: 0 on every autograded cell, no grader error", True, "0 everywhere"),
                    Row("a due date to hide the value answers until", None, long, warn=True)]
    for columns, fits in ((None, 100), ("120", 120), ("72", 72)):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        print_report(report)
        printed = capsys.readouterr().out
        assert max(len(line) for line in printed.splitlines()) == fits, printed
        assert table_rows(printed) == {
            "untouched release: 0 on every autograded cell, no grader error": "ok 0 everywhere",
            "a due date to hide the value answers until": f"warn {long}",
        }, printed


def _grader(root: Path) -> Path:
    return root / "autograder" / A / "test_standardize.py"


def test_a_fresh_assignment_passes(new_course):
    code, rows = _check(new_course)
    assert code == 0, rows
    assert rows["answer key: full marks"].startswith("ok")
    assert rows["mistakes/standardize_variance.py"].startswith("ok")
    assert rows["correct/standardize_loops.py"].startswith("ok")
    assert rows["no hidden value in the feedback"].startswith("ok")
    assert "known mistakes that give the right answer" not in rows     # its params avoid them


def test_json_and_the_kept_class_say_what_a_student_sees(new_course, tmp_path):
    """--json gives the rows as data; --keep keeps each simulated submission, its graded notebooks and
    its feedback pages; the settings' rows say what shows before the due date, and warn that with no
    due date the value answer (test_q1) has nothing to wait for."""
    kept = tmp_path / "kept"
    proc = _run(new_course, "check", A, "--students", "2", "--json", "--keep", str(kept))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    report = json.loads(proc.stdout)
    rows = {row["check"]: row for row in report["rows"]}
    assert report["ok"] and report["failed"] == 0 and report["kept"] == str(kept.resolve())
    assert rows["answer key: full marks"]["status"] == "ok"
    before = rows["before the due date (gradekit serve)"]["detail"]
    assert before.startswith("full feedback on 1 test cell(s); hidden until the due date: test_q1 (value answers"), before
    warning = rows["a due date to hide the value answers until"]
    assert warning["status"] == "warn" and "whether test_q1 is right would show at once" in warning["detail"]
    assert rows["settings"]["detail"] == f"source/{A}/assignment.toml sets nothing: the course's settings"
    for place in ("answer-key/qa001", "untouched-release/qa002", "mistakes/standardize_variance/qa001",
                  "correct/standardize_loops/qa001"):
        assert (kept / place / "submitted" / f"{A}.ipynb").is_file(), place
        assert (kept / place / "graded" / f"{A}.ipynb").is_file() and (kept / place / "graded" / "results.json").is_file()
        assert (kept / place / "feedback" / f"{A}.html").is_file(), place
    page = (kept / "mistakes/standardize_variance/qa001/feedback" / f"{A}.html").read_text()
    names = (REPO / "gradekit/authoring/skeleton/autograder/__ASSIGNMENT__/mistakes/standardize_variance.py.tmpl"
             ).read_text().splitlines()[0].removeprefix("# names:").strip()
    assert names in page
    index = (kept / "index.html").read_text()
    assert "mistakes/standardize_variance.py" in index and f"mistakes/standardize_variance/qa001/feedback/{A}.html" in index
    again = _run(new_course, "check", A, "--students", "1", "--keep", str(kept))
    assert again.returncode == 2 and again.stderr.strip().endswith("not an empty folder; give a new one (nothing is "
                                                                   "overwritten)"), again.stderr


def test_a_grader_that_passes_everything_fails_the_check(new_course):
    _grader(new_course).write_text("def test_anything(student):\n    pass\n")
    code, rows = _check(new_course)
    assert code == 1
    assert rows["untouched release: 0 on every autograded cell, no grader error"].startswith("FAIL")
    assert rows["mistakes/standardize_variance.py"].startswith("FAIL")
    assert "kept full marks" in rows["mistakes/standardize_variance.py"]


def test_a_grader_that_fails_everything_fails_the_check(new_course):
    _grader(new_course).write_text("def test_anything(student):\n    assert False, 'no'\n")
    code, rows = _check(new_course)
    assert code == 1
    assert rows["answer key: full marks"].startswith("FAIL")
    assert rows["correct/standardize_loops.py"].startswith("FAIL")


def test_a_grader_that_prints_the_expected_array_fails_the_check(new_course):
    path = _grader(new_course)
    text = path.read_text().replace(
        '''    check.array(student.standardize(x), reference.standardize(x), what=_("standardize(x) on {what}").format(what=what), **TOL,
                mistakes=lambda: _mistakes(x),
                call=check.Call(student.standardize, reference.standardize, dict(x=x)))''',
        '''    expected = reference.standardize(x)
    got = student.standardize(x)
    assert check.close(got, expected, rtol=1e-6), f"standardize(x) on {what}: expected {expected}"''')
    assert "expected {expected}" in text
    path.write_text(text)
    code, rows = _check(new_course)
    assert code == 1
    assert rows["no hidden value in the feedback"].startswith("FAIL")


def test_a_mistake_whose_feedback_says_something_else_is_one_line_naming_the_students(new_course):
    """A `names:` phrase the graders do not say fails the check with what they say instead --
    once, with the simulated students it happened to, not once per student."""
    qa = new_course / "autograder" / A / "mistakes" / "standardize_columns.py"
    qa.write_text("# names: normalised over the wrong axis\n# %% standardize\ndef standardize(x):\n"
                  "    x = np.asarray(x, dtype=float)\n"
                  "    return (x - x.mean(axis=0, keepdims=True)) / x.std(axis=0, keepdims=True)\n")
    code, rows = _check(new_course)
    assert code == 1
    row = " ".join(rows["mistakes/standardize_columns.py"].split())
    assert row.startswith("FAIL the feedback does not say “normalised over the wrong axis”"), row
    assert "says: standardized the columns instead of the rows" in row   # what it names instead
    assert row.count("does not say") == 1 and "also named" not in row, row
    assert row.endswith("(qa001, qa002, qa003)"), row
    assert rows["mistakes/standardize_variance.py"].startswith("ok")


def test_a_template_with_an_undefined_variable_fails_the_check(new_course):
    path = new_course / "source" / A / f"{A}.ipynb"
    nb = json.loads(path.read_text())
    code_cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    code_cell["source"] = "".join(code_cell["source"]) + "\ny = {{ no_such_param }}\n"
    path.write_text(json.dumps(nb))
    code, rows = _check(new_course)
    assert code == 1
    row = next(v for k, v in rows.items() if k.startswith("templates render"))
    assert row.startswith("FAIL") and "no_such_param" in row


def test_usage_mistakes_exit_2(new_course):
    assert _run(new_course, "check", "no_such_assignment").returncode == 2
    assert _run(new_course, "check", A, "--students", "0").returncode == 2


def test_failures_are_grouped_by_simulated_student_only():
    """"qa001: what" lines of simulated students are one line naming them; any other line --
    a grade id or a file name before a colon, or a repeated line -- stays as it is."""
    from gradekit.qa.rows import CheckReport

    report = CheckReport(A, 4, ids=frozenset({"qa001", "qa002", "qa003", "qa004"}))
    report.add("points", ["q1: 0 points", "q2: 0 points", "same", "same"])
    report.add("mistake", [f"{s}: the feedback does not say it" for s in ("qa001", "qa002", "qa003", "qa004")]
               + ["qa001: also this"], limit=5)
    assert report.rows[0].detail == "q1: 0 points; q2: 0 points; same; and 1 more"
    assert report.rows[1].detail == "the feedback does not say it (qa001, qa002, qa003 and 1 more); also this (qa001)"
    assert not report.ok


def test_a_qa_file_whose_own_code_raises_says_so(new_course):
    """A QA cell written as a template (`{{ ... }}`) raises as the cell runs: the check says that,
    with the error, not only that the feedback misses the phrase."""
    qa = new_course / "autograder" / A / "mistakes" / "q1_templated.py"
    qa.write_text("# names: a wrong mean\n# %% q1\nq1_mean = {{ values[0] }}\n")
    code, rows = _check(new_course)
    assert code == 1
    row = " ".join(rows["mistakes/q1_templated.py"].split())
    assert "its code for q1 raises when the cell runs: NameError: name 'values' is not defined" in row, row


def test_a_known_mistake_that_gives_the_right_answer_is_listed(new_course):
    """A route of `mistakes=` that equals the right answer on some input cannot be caught there:
    the check lists it (information, not a failure), with how many variants it concerns."""
    path = _grader(new_course)
    text = path.read_text()
    route = '            _("forgot to subtract the mean"): x / x.std(axis=-1, keepdims=True),\n'
    assert route in text
    path.write_text(text.replace(route, route + '            "the population deviation": '
                                                 'centred / x.std(axis=-1, ddof=0, keepdims=True),\n'))
    code, rows = _check(new_course)
    assert code == 0, rows                       # information only: the other checks still pass
    row = " ".join(rows["known mistakes that give the right answer"].split())
    assert row.startswith("info “the population deviation” on 5 check(s), such as standardize(x) on"), row
    assert "(3 of 3 variants)" in row, row



def test_one_mistake_with_two_possible_values_is_two_entries_holding_its_phrase(new_course):
    """The guide's rule, as written there: a mistake students write two ways (the variance with n, or
    with n - 1) is two entries of mistakes= whose names both hold the QA file's phrase; a QA file for
    each way then passes. Without the second entry, the second way is not named: its row fails."""
    second = new_course / "autograder" / A / "mistakes" / "standardize_sample_variance.py"
    second.write_text("# names: divided by the variance\n# %% standardize\ndef standardize(x):\n"
                      "    x = np.asarray(x, dtype=float)\n"
                      "    return (x - x.mean(axis=-1, keepdims=True)) / x.var(axis=-1, ddof=1, keepdims=True)\n")

    def rows() -> dict[str, dict]:
        proc = _run(new_course, "check", A, "--students", "3", "--json")
        return {row["check"]: row for row in json.loads(proc.stdout)["rows"]}

    before = rows()["mistakes/standardize_sample_variance.py"]
    assert before["status"] == "fail" and "does not say “divided by the variance”" in before["detail"], before
    path = _grader(new_course)
    text = path.read_text()
    entry = ('            _("divided by the variance instead of the standard deviation"): '
             'centred / x.var(axis=-1, keepdims=True),\n')
    assert entry in text
    path.write_text(text.replace(entry, entry + '            _("divided by the variance (with n - 1) instead of the '
                                 'standard deviation"): centred / x.var(axis=-1, ddof=1, keepdims=True),\n'))
    after = rows()
    for name in ("mistakes/standardize_variance.py", "mistakes/standardize_sample_variance.py"):
        assert after[name]["status"] == "ok", after[name]
        assert after[name]["detail"].startswith("names “divided by the variance”"), after[name]


def test_a_multiple_choice_cell_left_out_of_choice_cells_is_told_where_to_declare_it(tmp_path):
    """long_context's concept checks (check.option) with choice_cells emptied: gradekit check sees
    they grade multiple-choice items, says to declare them in the assignment's settings, and judges
    their diversity against chance -- never the advice for numbers ("a larger space")."""
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(REPO / "nbgrader_config.py", root)
    for part in ("source", "autograder", "solutions"):
        shutil.copytree(REPO / part / "long_context", root / part / "long_context",
                        ignore=shutil.ignore_patterns("__pycache__"))
    settings = root / "source" / "long_context" / "assignment.toml"
    text = settings.read_text()
    assert 'choice_cells = ["test_concepts"]' in text
    settings.write_text(text.replace('choice_cells = ["test_concepts"]', "# choice_cells = []"))
    proc = _run(root, "check", "long_context", "--students", "2", "--json")
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr
    rows = {row["check"]: row for row in json.loads(proc.stdout)["rows"]}
    told = rows["test_concepts: multiple choice, not declared"]
    assert told["status"] == "warn"
    assert told["detail"].startswith("test_concepts grades multiple-choice items (it calls check.option) but is "
                                     "not in choice_cells: declare it in [grading] choice_cells of "
                                     "source/long_context/assignment.toml"), told["detail"]
    concepts = [row for name, row in rows.items() if name.startswith("variant diversity: test_concepts")]
    assert concepts and all("chance" in row["detail"] or "choice_cells" in row["detail"] for row in concepts), concepts
    assert not any("larger space" in row["detail"] for row in concepts), concepts
    assert not any(name.endswith("not declared") for name in rows if not name.startswith("test_concepts"))


SHIPPED = Course.load(REPO).assignments()


@pytest.mark.slow
@pytest.mark.parametrize("assignment", SHIPPED)
def test_every_shipped_assignment_passes_its_own_check(assignment):
    """`gradekit check` on each shipped assignment, as its instructor runs it (two simulated students: the
    first hands in each QA file alone, the second the mistakes packed): every check passes. The course
    tests grade the same QA sets on more variants; this is the command.

    Its determinism row grades the answer key again as a student of another language: it handed in the
    English notebook, which the grader, rebuilding the Chinese one, took for someone else's (every
    read-only cell differed, a note on the result) -- the row failed on every shipped assignment."""
    proc = _run(REPO, "check", assignment, "--students", "2", "--json")
    rows = {r["check"]: r for r in json.loads(proc.stdout)["rows"]}
    failed = {name: row["detail"] for name, row in rows.items() if row["status"] == "FAIL"}
    assert proc.returncode == 0 and not failed, (failed, proc.stderr[-2000:])
    twice = rows["grading twice gives the same grades and feedback"]
    assert twice["status"] == "ok" and "the second time in zh" in twice["detail"], twice
