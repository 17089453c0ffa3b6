"""One student's file or one course bug never stops, stalls or corrupts the class (issue 16).

A student's failure (garbage timestamps, symbolic links, odd names, markup in
error messages, archives that blow up) costs that student, with the reason; the
rest of the class is graded and the gradebook says what the summary says. A
course failure (a grader that does not compile or import) stops the run before
any grade is written, exits non-zero and names the file and line.
"""

from __future__ import annotations

import os
import threading
import zipfile
from pathlib import Path

import pytest

from conftest import ASSIGNMENT, NOTEBOOK
from gradekit.sandbox.limits import Limits
from gradekit.sandbox.bwrap import bwrap_path

pytestmark = [pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed"), pytest.mark.e2e]

GRADER = Path("autograder") / ASSIGNMENT / "test_softmax.py"


def _scores(course) -> dict[str, float]:
    """Each student's total in nbgrader's gradebook (what `nbgrader export` would say)."""
    with course.gradebook() as gb:
        out = {}
        for student in gb.students:
            try:
                out[student.id] = gb.find_submission(ASSIGNMENT, student.id).score
            except Exception:  # noqa: BLE001 - no submission
                pass
        return out


def _submit_key(course, student: str) -> None:
    course.submit(student, course.answer_key(student))


def _submit_timestamp(course, student: str, data: bytes) -> None:
    path = course.submission_path(student).parent / "timestamp.txt"
    path.write_bytes(data)


# -- timestamps ------------------------------------------------------------------------------

GARBAGE = {
    "alice": b"not a date at all",
    "bob": b"2026-11-20 10:00:00.000000 UTC\x00\x00\xff\xfe",
    "carol": b"9999-12-31 23:59:59.000000 UTC",      # the far future
    "dave": b"2026-13-45 99:99:99",                     # a date that cannot be
    "erin": b"1" * 100_000,                              # huge
}


def test_garbage_timestamps_are_unknown_and_the_class_is_graded(course, capsys):
    course.generate()
    for student in course.students():
        _submit_key(course, student)
    for student, data in GARBAGE.items():
        _submit_timestamp(course, student, data)
    _submit_timestamp(course, "frank", b"2026-11-20 10:00:00.000000 UTC")
    assert course.autograde(jobs=2) == 0
    out = capsys.readouterr().out
    results = course.results()
    assert set(results) == set(course.students())
    for student in GARBAGE:
        result = results[student]
        assert result.error is None and result.score == result.possible, (student, result.error)
        assert result.timestamp is None
        assert any("timestamp.txt" in n and "unknown" in n for n in result.notes), result.notes
    assert results["frank"].timestamp == "2026-11-20 10:00:00.000000 UTC" and not results["frank"].notes
    assert "timestamp.txt" in out     # reported in the summary
    # and again: the stored results are replayed (the bug was that the rerun crashed on them)
    assert course.autograde(jobs=1) == 0
    scores = _scores(course)
    assert all(scores[s] == results[s].possible for s in course.students()), scores


@pytest.mark.parametrize("text", [
    "2026-11-20 10:00:00.000000 UTC", "2026-11-20 10:00:00 UTC", "2026-11-20 10:00:00.5 +0800",
    "2026-11-20 10:00:00 -0300", "2026-11-20 10:00:00 America/New_York", "2026-11-20T10:00:00+01:00",
    "2026-11-20", "Nov 20 2026 10am", "20/11/2026 10:00", "2026-11-20 10:00:00 Mars/Olympus",
    "not a date", "2026-13-45 99:99:99 UTC", "1 2 3", "", "99999999999999999999",
])
def test_timestamps_parse_as_nbgrader_parses_them(text):
    """untrusted.parse_utc, gradekit's copy, against nbgrader's own (the oracle): the same
    datetime, or both refuse."""
    from nbgrader.utils import parse_utc as nbgrader_parse_utc

    from gradekit.untrusted import parse_utc

    def outcome(parse):
        try:
            return parse(text)
        except Exception:  # noqa: BLE001 - which error differs; that both refuse must not
            return "refused"

    assert outcome(parse_utc) == outcome(nbgrader_parse_utc)


def test_a_timestamp_that_is_a_fifo_or_a_link_does_not_block(course):
    course.generate("alice", "bob")
    _submit_key(course, "alice")
    _submit_key(course, "bob")
    os.mkfifo(course.submission_path("alice").parent / "timestamp.txt")
    (course.submission_path("bob").parent / "timestamp.txt").symlink_to("/etc/hostname")
    done = threading.Event()
    codes = []

    def grade():
        codes.append(course.autograde("alice", "bob"))
        done.set()

    threading.Thread(target=grade, daemon=True).start()
    assert done.wait(120), "autograde blocked on a FIFO"
    assert codes == [0]
    results = course.results(["alice", "bob"])
    for student in ("alice", "bob"):
        assert results[student].score == results[student].possible
        assert results[student].timestamp is None and results[student].notes


# -- course failures ------------------------------------------------------------------------------

@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("bug, where", [
    ("def broken(:\n", "invalid syntax"),                     # does not compile: the preflight
    ("import no_such_module_anywhere\n", "ModuleNotFoundError"),   # compiles, does not import: the workers
])
def test_a_broken_grader_stops_the_run_and_writes_nothing(course, capsys, bug, where, jobs):
    course.generate("alice", "bob", "carol")
    for student in ("alice", "bob", "carol"):
        _submit_key(course, student)
    assert course.autograde("alice", "bob", jobs=jobs) == 0
    before = _scores(course)
    assert before == {"alice": 20.0, "bob": 20.0}
    capsys.readouterr()
    path = course.root / GRADER
    lines = path.read_text().splitlines(keepends=True)
    line = len(lines) + 1
    path.write_text("".join(lines) + bug)
    code = course.cli("autograde", ASSIGNMENT, "--jobs", str(jobs))
    err = capsys.readouterr().err.strip()
    assert code == 3, err
    assert len(err.splitlines()) == 1, err
    assert f"{GRADER}:{line}" in err and where in err, err
    assert _scores(course) == before                      # nothing written, carol not zeroed
    assert not (course.root / "autograded" / "carol").exists()


RUNTIME_BUG = '''

def test_an_extra_check(student, reference, params):
    """an extra check"""
    assert referense is not None
'''
ODD_VALUE_PROBE = '''

def test_the_result_is_an_array(student):
    """the result is an array"""
    assert student.softmax(np.array([[1.0, 2.0]])).shape == (1, 2)
'''


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_grader_that_fails_on_the_answer_key_at_run_time_stops_the_run(course, capsys, jobs):
    """A grader that compiles and imports but raises on every submission (a typo in a name, a
    misspelled fixture) is the course's bug, not the class's zeros: confirmed on the answer key,
    the run stops with one line naming the test, exit 3, and the gradebook is as it was."""
    course.generate("alice", "bob", "carol")
    for student in ("alice", "bob", "carol"):
        _submit_key(course, student)
    assert course.autograde("alice", "bob", jobs=jobs) == 0
    before = _scores(course)
    capsys.readouterr()
    path = course.root / GRADER
    path.write_text(path.read_text() + RUNTIME_BUG)
    code = course.cli("autograde", ASSIGNMENT, "--jobs", str(jobs))
    err = capsys.readouterr().err.strip()
    assert code == 3 and len(err.splitlines()) == 1, err
    assert f"{GRADER}::test_an_extra_check: NameError" in err and "on the answer key too" in err, err
    assert _scores(course) == before
    assert not (course.root / "autograded" / "carol").exists()


def test_a_grader_error_only_a_students_answer_provokes_costs_that_student_only(course, capsys):
    """The same kind of exception provoked by one student's odd value (a list where the grader
    expects an array) is that student's lost check, with the reason; the answer key passes it,
    so the run goes on and the rest of the class keeps full marks."""
    from conftest import with_solutions

    course.generate("alice", "carol")
    _submit_key(course, "alice")
    listy = ("def softmax(x, axis=-1):\n    x = np.asarray(x, dtype=float)\n"
             "    e = np.exp(x - np.max(x, axis=axis, keepdims=True))\n"
             "    return (e / e.sum(axis=axis, keepdims=True)).tolist()\n")
    course.submit("carol", with_solutions(course.answer_key("carol"), {"softmax": listy}))
    results = _grade_with_extra_grader(course, capsys, ODD_VALUE_PROBE, ["alice", "carol"])
    assert results["alice"].score == results["alice"].possible
    checks = _checks(results["carol"], "the result is an array")
    assert [(k.passed, k.message) for k in checks] == [(False, "the grader could not check this: AttributeError")]


UNCROSSABLE = '''

def test_an_uncrossable_argument(student):
    """an argument that cannot cross"""
    student.softmax({1.0, 2.0})
'''


def test_an_argument_the_sandbox_cannot_take_is_a_course_failure_not_a_students_zero(course, capsys):
    """A grader passing the student's code what cannot cross the boundary (a set) is the grader's
    mistake: confirmed on the answer key, the run stops with the grader-bug line, exit 3, and the
    gradebook is as it was -- never a zero for the class."""
    course.generate("alice", "bob")
    for student in ("alice", "bob"):
        _submit_key(course, student)
    assert course.autograde("alice") == 0
    before = _scores(course)
    capsys.readouterr()
    path = course.root / GRADER
    path.write_text(path.read_text() + UNCROSSABLE)
    code = course.cli("autograde", ASSIGNMENT, "--jobs", "1")
    err = capsys.readouterr().err.strip()
    assert code == 3 and len(err.splitlines()) == 1, err
    assert f"{GRADER}::test_an_uncrossable_argument: BoundaryError:" in err and "on the answer key too" in err, err
    assert "a value of type set cannot cross" in err, err
    assert _scores(course) == before and not (course.root / "autograded" / "bob").exists()


def test_a_reference_helper_the_students_code_calls_wrongly_costs_that_student_only(course, capsys):
    """The reference softmax (``with_reference``) raising on what one student's code gives it is
    suspected first -- the answer key is graded -- then that student's failure, said as such; the
    answer key passes, so the run goes on."""
    from conftest import with_solutions

    course.generate("alice", "carol")
    _submit_key(course, "alice")
    wrong = ("def self_attention(X, W_q, W_k, W_v):\n    Q, K, V = project_qkv(X, W_q, W_k, W_v)\n"
             "    weights = softmax(scaled_scores(Q, K), axis=2)\n    return weighted_sum(weights, V), weights\n")
    course.submit("carol", with_solutions(course.answer_key("carol"), {"self_attention": wrong}))
    assert course.cli("autograde", ASSIGNMENT, "--jobs", "1") == 0, capsys.readouterr().err
    results = course.results(["alice", "carol"])
    assert results["alice"].score == results["alice"].possible
    messages = [k.message for nb in results["carol"].notebooks for c in nb.cells if c.grade_id == "test_self_attention"
                for k in c.checks if not k.passed]
    assert messages and all("in the grader's softmax: AxisError" in m for m in messages), messages
    assert all(m.startswith("calling `self_attention` raised") for m in messages), messages


def _grade_with_extra_grader(course, capsys, grader: str, students: list[str]) -> dict:
    """Append ``grader`` to the softmax graders, grade with one process, return the results."""
    path = course.root / GRADER
    path.write_text(path.read_text() + grader)
    assert course.cli("autograde", ASSIGNMENT, "--jobs", "1") == 0, capsys.readouterr().err
    return course.results(students)


def _checks(result, name: str) -> list:
    return [k for nb in result.notebooks for c in nb.cells for k in c.checks if k.name == name]


PYTEST_RAISES = '''

def test_a_string_is_refused(student):
    """a string is refused"""
    import pytest
    with pytest.raises(TypeError):
        student.softmax("not numbers")
'''


def test_a_grader_using_pytest_raises_is_a_check_like_any_other(course, capsys):
    """pytest.raises' "DID NOT RAISE" (a BaseException, like pytest.fail) is that check failing,
    with pytest's message -- not a crash of the grading, nor a grader bug."""
    from conftest import with_solutions

    course.generate("alice")
    lenient = ("def softmax(x, axis=-1):\n    try:\n        x = np.asarray(x, dtype=float)\n"
               "    except (TypeError, ValueError):\n        return None\n"
               "    e = np.exp(x - np.max(x, axis=axis, keepdims=True))\n"
               "    return e / e.sum(axis=axis, keepdims=True)\n")
    course.submit("alice", with_solutions(course.answer_key("alice"), {"softmax": lenient}))
    result = _grade_with_extra_grader(course, capsys, PYTEST_RAISES, ["alice"])["alice"]
    (refused,) = _checks(result, "a string is refused")
    assert not refused.passed and "DID NOT RAISE" in refused.message, refused
    assert result.error is None and result.score > 0   # the rest of the notebook was graded


def test_a_template_that_does_not_render_stops_the_run(course, capsys):
    import json

    course.generate("alice")
    _submit_key(course, "alice")
    path = course.root / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"][-1]["source"] = "x = {{ no_such_param }}\n"
    label = nb["cells"][-1]["metadata"].get("nbgrader", {}).get("grade_id") or nb["cells"][-1]["id"]
    path.write_text(json.dumps(nb))
    assert course.cli("autograde", ASSIGNMENT) == 3
    err = capsys.readouterr().err
    assert "no_such_param" in err and f"{NOTEBOOK}.ipynb cell {len(nb['cells']) - 1} '{label}'" in err, err
    assert _scores(course) == {}


@pytest.mark.parametrize("bug, says", [
    ("    while True:\n        pass\n", "did not return within 0.5 s"),   # waits for a draw that never comes
    ("    return 1 / 0\n", "ZeroDivisionError"),
])
def test_a_params_generator_that_hangs_or_raises_stops_the_run(course, capsys, monkeypatch, bug, says):
    """A generator that never returns, or raises, for a student's seed is a course bug: one line
    naming the file, exit 3 -- never a hung command, nor a student's zero."""
    import gradekit.authoring.template

    course.generate("alice")
    _submit_key(course, "alice")
    monkeypatch.setattr(gradekit.authoring.template, "GENERATE_SECONDS", 0.5)
    path = course.root / "source" / ASSIGNMENT / "params.py"
    path.write_text(path.read_text() + "\n\n_generate = generate\n\n\ndef generate(rng):\n" + bug)
    capsys.readouterr()
    assert course.cli("autograde", ASSIGNMENT) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{ASSIGNMENT}/params.py" in err and says in err, err
    assert _scores(course) == {}


def test_a_submission_that_cannot_be_graded_is_zero_in_the_gradebook_too(course):
    """Graded before, then replaced by something with no notebook: zeros, not the old score."""
    course.generate("alice")
    _submit_key(course, "alice")
    assert course.autograde("alice") == 0
    assert _scores(course) == {"alice": 20.0}
    course.submission_path("alice").rename(course.submission_path("alice").with_name("homework.ipynb"))
    assert course.autograde("alice") == 0
    assert course.results(["alice"])["alice"].error
    assert _scores(course) == {"alice": 0.0}


# -- names and links in submitted/ -------------------------------------------------------------------

def test_symbolic_links_in_submitted_are_never_followed(course, tmp_path, capsys):
    course.generate("alice", "bob", "carol")
    outside = tmp_path / "outside"
    outside.mkdir()
    key = course.answer_key("alice")
    import nbformat

    (outside / f"{NOTEBOOK}.ipynb").write_text(nbformat.writes(key))
    # alice's notebook is a link to a file outside the course; bob's whole folder is a link
    course.submission_path("alice").parent.mkdir(parents=True)
    course.submission_path("alice").symlink_to(outside / f"{NOTEBOOK}.ipynb")
    (course.root / "submitted" / "bob").mkdir(parents=True)
    (course.root / "submitted" / "bob" / ASSIGNMENT).symlink_to(outside)
    _submit_key(course, "carol")
    assert course.cli("autograde", ASSIGNMENT) == 0
    captured = capsys.readouterr()
    results = course.results()
    assert results["carol"].score == 20.0
    assert results["alice"].score == 0 and "no notebook" in results["alice"].error
    assert "bob" not in results and "submitted/bob: a symbolic link" in captured.err


def test_odd_folder_names_are_reported_and_case_is_not_guessed(course, capsys):
    course.generate("alice")
    _submit_key(course, "alice")
    for name in ("Alice", "..evil", "caf\u00e9", "x\x1b[2J"):
        folder = course.root / "submitted" / name / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / f"{NOTEBOOK}.ipynb").write_text("{}")
    assert course.cli("autograde", ASSIGNMENT) == 0
    out, err = capsys.readouterr()
    assert "submitted/Alice: not in the gradebook (did you mean alice?)" in err
    assert "not a valid student id" in err and "\x1b" not in err
    assert set(course.results()) == {"alice"}
    # said again under the summary table, where it does not scroll away
    last = " ".join(out.strip().splitlines()[-3:])
    assert "not graded: 4 folder(s) of submitted/: submitted/" in last and "and 1 more" in last, out[-600:]
    assert "\x1b" not in out


def test_a_notebook_name_that_differs_only_in_case_is_graded_with_a_note(course):
    course.generate("alice")
    _submit_key(course, "alice")
    path = course.submission_path("alice")
    path.rename(path.with_name(NOTEBOOK.upper() + ".ipynb"))
    assert course.autograde("alice") == 0
    result = course.results(["alice"])["alice"]
    assert result.score == 20.0
    assert any("differs only in case" in note for note in result.notes)


# -- student text shown by rich -------------------------------------------------------------------------

def test_markup_in_a_student_error_is_printed_as_text(course, capsys):
    course.generate("alice")
    key = course.answer_key("alice")
    from conftest import with_solutions

    nb = with_solutions(key, {"softmax": "def softmax(x, axis=-1):\n    raise ValueError('[/x] [bold red]boom')\n"})
    nb.cells.insert(1, __import__("nbformat").v4.new_code_cell("raise RuntimeError('[/] \\x1b[31m [link=x]')"))
    course.submit("alice", nb)
    assert course.autograde("alice") == 0
    out = capsys.readouterr().out
    assert "[/]" in out and "\x1b[31m" not in out


# -- metadata ---------------------------------------------------------------------------------------------

def test_junk_metadata_is_dropped_before_anything_reads_it(course):
    import json

    course.generate("alice")
    key = json.loads(__import__("nbformat").writes(course.answer_key("alice")))
    for i, cell in enumerate(key["cells"]):
        meta = cell["metadata"]
        if i % 4 == 0:
            meta["nbgrader"] = ["not", "a", "dict"]
        elif i % 4 == 1:
            meta["nbgrader"]["points"] = "a lot"
            meta["nbgrader"]["grade"] = {"nested": [1, 2, 3]}
        elif i % 4 == 2:
            meta["gradekit"] = {"not_submitted": True}
            meta["deep"] = {"a": {"b": {"c": [None] * 100}}}
        cell["id"] = {"not": "a string"} if i % 5 == 0 else cell.get("id")
    key["metadata"] = {"gradekit": {"notes": ["<script>alert(1)</script>"]}, "kernelspec": 42}
    course.submit("alice", json.dumps(key))
    assert course.autograde("alice") == 0
    result = course.results(["alice"])["alice"]
    assert result.error is None and result.possible == 20.0


def test_deeply_nested_json_is_a_zero_with_a_reason(course):
    course.generate("alice", "bob")
    course.submit("alice", "[" * 100_000 + "]" * 100_000)
    _submit_key(course, "bob")
    assert course.autograde("alice", "bob", jobs=1) == 0
    results = course.results(["alice", "bob"])
    assert results["bob"].score == 20.0
    assert "nested too deeply" in (results["alice"].notebooks[0].error or "")


# -- archives ---------------------------------------------------------------------------------------------

def _zip(path: Path, entries: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in entries.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=(2026, 11, 20, 12, 0, 0)), data, compression)
    return path


def test_zip_bomb_slip_and_size_caps(course, tmp_path, capsys):
    from gradekit.handout.lms import collect_zip
    from gradekit.untrusted import ArchiveLimits

    limits = ArchiveLimits(entry_bytes=4 << 20, total_bytes=64 << 20, ratio=50, entries=100)
    notebook = __import__("nbformat").writes(course.answer_key("alice")).encode()
    bomb = _zip(tmp_path / "bomb.zip", {
        f"alice/{NOTEBOOK}.ipynb": notebook,
        f"bob/{NOTEBOOK}.ipynb": b"\0" * (20 << 20),            # 20 MiB of zeros: ratio ~1000:1, and too big
        f"carol/{NOTEBOOK}.ipynb": b" " * (3 << 20),            # under the size cap, but 3 MiB of spaces
        f"../../dave/{NOTEBOOK}.ipynb": notebook,               # zip slip
        f"/etc/{NOTEBOOK}.ipynb": notebook,                     # absolute
    })
    report = collect_zip(course.course, ASSIGNMENT, bomb, limits=limits)
    lines = "\n".join(report.lines())
    assert report.imported == {"alice": [f"{NOTEBOOK}.ipynb"]}
    assert "bob" in lines and "over the" in lines
    assert "carol" in lines and "to 1" in lines
    assert "'..'" in lines and lines.count("REFUSED") == 4
    assert not (course.root.parent / "dave").exists() and not (course.root / "dave").exists()
    too_many = _zip(tmp_path / "many.zip", {f"s{i}/{NOTEBOOK}.ipynb": b"{}" for i in range(101)},
                    zipfile.ZIP_STORED)
    from gradekit.errors import LMSError

    with pytest.raises(LMSError, match="101 entries"):
        collect_zip(course.course, ASSIGNMENT, too_many, limits=limits)


def test_timeouts_and_kills_are_counted_in_the_result(course):
    """The report's grading health reads these counts, not the (translated) messages."""
    course.generate("alice", "bob")
    key = course.answer_key("alice")
    from conftest import with_solutions

    hangs = with_solutions(key, {"softmax": "def softmax(x, axis=-1):\n    while True:\n        pass\n"})
    dies = with_solutions(course.answer_key("bob"),
                          {"softmax": "def softmax(x, axis=-1):\n    import os\n    os._exit(3)\n"})
    course.submit("alice", hangs)
    course.submit("bob", dies)
    course.configure(call_timeout=1.0)
    assert course.autograde("alice", "bob") == 0
    results = course.results(["alice", "bob"])
    assert results["alice"].timeouts >= 1 and results["alice"].kills == 0
    assert results["bob"].kills >= 1 and results["bob"].timeouts == 0
