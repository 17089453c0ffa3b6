"""``gradekit quickstart DIR``: a course anywhere, refused over anything there, nothing left on failure."""

from __future__ import annotations

import pytest

from gradekit.authoring import quickstart as qs
from gradekit.cli.main import main
from gradekit.errors import UsageError


def test_a_course_with_its_assignment_roster_and_gitignore(tmp_path, capsys):
    assert main(["quickstart", str(tmp_path / "Linear Algebra 2027")]) == 0
    root = tmp_path / "Linear Algebra 2027"
    assert 'course_id = "Linear_Algebra_2027"' in (root / "nbgrader_config.py").read_text()
    for path in ("source/week1/week1.ipynb", "autograder/week1", "solutions/week1/reference.py", "roster.csv",
                 "gradebook.db", ".gitignore"):
        assert (root / path).exists(), path
    out = capsys.readouterr().out
    assert "3 students in its gradebook" in out and "gradekit check week1" in out
    from gradekit.course import Course
    from gradekit.gradebook.read import students

    assert students(Course.load(root)) == ["alice", "bob", "chen"]


def test_anything_in_the_directory_is_refused_and_left_alone(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["quickstart", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    with pytest.raises(UsageError, match="is a file"):
        with qs.new_course(tmp_path / "notes.txt"):
            pass


def test_a_failure_half_way_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with qs.new_course(tmp_path / "c") as root:
            qs.write_course(root)
            raise RuntimeError("the gradebook could not be written")
    assert not (tmp_path / "c").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(RuntimeError):
        with qs.new_course(tmp_path / "empty") as root:
            qs.write_course(root)
            raise RuntimeError
    assert (tmp_path / "empty").is_dir() and not list((tmp_path / "empty").iterdir())


def test_course_ids_from_directory_names(tmp_path):
    assert qs.course_id_for(tmp_path / "ml-101") == "ml-101"
    assert qs.course_id_for(tmp_path / "数学") == "course" and qs.course_id_for(tmp_path / "ml 数学") == "ml"
    assert qs.course_id_for(tmp_path / "...") == "course"


# what each verb (and nbgrader, and make) writes into a course, by a path it writes there: all private
WRITTEN = {
    "generate, nbgrader release_assignment": "release/alice/week1/week1.ipynb",
    "release --zip handout/ (the tutorial's folder)": "handout/alice.zip",
    "collect, nbgrader collect": "submitted/alice/week1/week1.ipynb",
    "autograde": "autograded/alice/week1/results.json",
    "feedback": "feedback/alice/week1/week1.html",
    "answer-key --out key/ (the tutorial's folder)": "key/alice/week1.ipynb",
    "report, integrity": "reports/week1/index.html",
    "nbgrader export": "grades.csv",
    "export --format canvas": "canvas_grades.csv",
    "the gradebook and its journal": "gradebook.db-journal",
    "the course secret": ".gradekit/secret",
    "the hand-in ledger and what it kept": ".gradekit/handins/week1/alice@1/week1.ipynb",
    "serve's attempts": ".gradekit/attempts/week1/alice/1/week1.html",
    "the grading page's marks": ".gradekit/manual/week1.sqlite",
    "languages.csv": "languages.csv",
    "make course-env COURSE_VENV=.venv": ".venv/bin/gradekit",
    "nbgrader's log, when its logfile is set": ".nbgrader.log",
    "translate, compiled": "source/week1/locale/zh.mo",
}


def test_every_folder_a_verb_writes_is_kept_out_of_git(tmp_path):
    """git ignores each place a verb writes students' work, answers or secrets into a quickstart course,
    and none of the course's own public files (its config, the templates, the params)."""
    import subprocess

    assert main(["quickstart", str(tmp_path / "c")]) == 0
    root = tmp_path / "c"
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    public = ["nbgrader_config.py", ".gitignore", "source/week1/week1.ipynb", "source/week1/params.py"]
    asked = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=root, capture_output=True,
                           text=True, input="\n".join([*WRITTEN.values(), *public]) + "\n")
    ignored = set(asked.stdout.split())
    assert [what for what, path in WRITTEN.items() if path not in ignored] == []
    assert ignored.isdisjoint(public)


def test_a_kept_folder_keeps_itself_out_of_git(tmp_path):
    """check --keep DIR and demo --keep DIR go where their user says: the folder ignores itself."""
    import subprocess

    from gradekit.course import keep_out_of_git

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "kept" / "answer-key" / "qa001").mkdir(parents=True)
    (tmp_path / "kept" / "answer-key" / "qa001" / "week1.ipynb").write_text("{}")
    keep_out_of_git(tmp_path / "kept", "gradekit check --keep")
    status = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout
    assert "??" not in status and "!! kept/" in status, status
