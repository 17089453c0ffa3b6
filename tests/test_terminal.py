"""gradekit.report and the final marks in results: what the instructor's summary shows."""

from gradekit.terminal import Summary, note_of
from gradekit.results import CellResult, NotebookResult, SubmissionResult


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
