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
