"""gradekit.pages.terminal and the final marks in results: what the instructor's summary shows."""

import pytest

from gradekit.pages.terminal import Summary, note_of
from gradekit.results import CellResult, NotebookResult, SubmissionResult
from gradekit.grading.diagnosis import diagnose


def result(late_penalty=None, error=None):
    nb = NotebookResult("self_attention", [CellResult("test_softmax", 2.0, 2.0), CellResult("test_kv_cache", 3.0, 1.0)],
                        late_penalty=late_penalty)
    return SubmissionResult("alice", "self_attention", [nb], error=error)


def test_a_late_penalty_shows_in_the_total_and_the_note():
    late = result(late_penalty=1.5)
    assert (late.score, late.final, late.late_penalty) == (3.0, 1.5, 1.5)
    assert note_of(late) == "late penalty 1.5 (score 3 before it)"
    summary = Summary()
    summary.add(late)
    summary.add(result())
    assert [row[2] for row in summary.rows] == [1.5, 3.0]
    assert note_of(result()) == ""


def test_the_final_score_is_never_negative_and_survives_json():
    harsh = result(late_penalty=10.0)
    assert harsh.final == 0.0
    again = SubmissionResult.from_dict(harsh.to_dict())
    assert again.notebooks[0].late_penalty == 10.0 and again.final == 0.0


def test_a_reason_and_a_penalty_are_both_named():
    assert note_of(result(late_penalty=1.0, error="no submission")) == \
        "no submission; late penalty 1 (score 3 before it)"


def test_a_submission_not_graded_at_all_counts_out_of_the_class_total(capsys):
    summary = Summary()
    summary.add(result())
    summary.add(SubmissionResult("bob", "self_attention", [], error="grading failed: the grading process died twice"))
    summary.print("self_attention")
    out = capsys.readouterr().out
    bob = next(line for line in out.splitlines() if "bob" in line)
    assert "0/5" in bob and "grading failed" in bob


def _class(n: int) -> list[SubmissionResult]:
    from gradekit.results import Check

    out = []
    for i in range(n):
        cells = [CellResult(f"test_cell_number_{k}", 2.0, 2.0 if (i + k) % 3 else 0.0,
                            [Check("check", bool((i + k) % 3), "" if (i + k) % 3 else "wrong -- divided by d_k",
                                   mistake=None if (i + k) % 3 else "divided by d_k instead of sqrt(d_k)")])
                 for k in range(14)]
        for cell in cells:
            diagnose(cell)
        nbs = [NotebookResult("exercises", cells[:8]), NotebookResult("quiz_with_a_long_name", cells[8:])]
        out.append(SubmissionResult(f"student{i:03d}", "self_attention", nbs))
    return out


@pytest.mark.parametrize("n", [5, 80])
def test_the_summary_fits_a_100_column_terminal(capsys, n):
    summary = Summary()
    for r in _class(n):
        summary.add(r)
    summary.print("self_attention: a class")
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 100
    header = next(line for line in lines if "most common problem" in line and "┃" in line)
    assert "cell_number" not in header
    if n <= 60:      # a row per student, a column per notebook
        assert "exercises" in header and "quiz_with_a_long_name" in header
    else:            # a row per notebook
        assert {line.split()[1] for line in lines if line.startswith("│")} >= {"exercises", "quiz_with_a_long_name"}
    assert lines[-1].startswith("most common problem: ") and "divided by d_k" in lines[-1]


def test_wide_gives_one_column_per_cell(capsys):
    summary = Summary(wide=True)
    for r in _class(5):
        summary.add(r)
    summary.print("self_attention: a class")
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "student" in line and "┃" in line)
    assert header.count("cell_number") == 14 or header.count("cell_nu") == 14


def test_wide_names_each_students_named_mistakes_in_the_note_column(capsys):
    """The note column of `autograde --wide` says which mistake each cell's feedback named, whole."""
    from gradekit.results import Check

    def one(student, mistake):
        cell = CellResult("test_softmax", 2.0, 0.0 if mistake else 2.0,
                          [Check("check", not mistake, "wrong" if mistake else "", mistake=mistake,
                                 candidates=[mistake] if mistake else [])])
        diagnose(cell)
        return SubmissionResult(student, "self_attention", [NotebookResult("self_attention", [cell])])

    summary = Summary(wide=True)
    summary.add(one("alice", "normalised along axis 0 whatever the axis argument says"))
    summary.add(one("bob", None))
    summary.print("self_attention")
    out = capsys.readouterr().out
    alice = " ".join(line.split("│")[-2].strip() for line in out.splitlines() if line.count("│") > 3 and
                     ("alice" in line or line.split("│")[1].strip() == ""))
    assert "softmax: normalised along axis 0 whatever the axis argument says" in " ".join(alice.split()), out
    bob = next(line for line in out.splitlines() if "bob" in line)
    assert bob.split("│")[-2].strip() == ""


def test_a_cell_that_failed_in_a_notebook_that_kept_full_marks_is_no_loss():
    """A cell that ended its process (os._exit) was skipped and every exercise graded without it: the row
    said "20/20" beside "1 cell(s) raised, first: Crashed: ...". It says the notebook kept full marks;
    where points were lost, the failed cells are the reason, as before."""
    from gradekit.results import CellRun

    exit_cell = CellRun("41c90fa7", False, "Crashed: the student's process exited with status 0 (sys.exit or "
                        "os._exit?) -- this cell was skipped and the others run without it")
    full = result()
    full.notebooks[0].cells[1] = CellResult("test_kv_cache", 3.0, 3.0)
    full.notebooks[0].runs = [CellRun("setup", True), exit_cell]
    assert note_of(full) == f"self_attention: full marks, though 1 cell(s) failed, first: {exit_cell.error}"
    lost = result()
    lost.notebooks[0].runs = [CellRun("setup", True), exit_cell]
    assert note_of(lost) == f"self_attention: 1 cell(s) failed, first: {exit_cell.error}"
