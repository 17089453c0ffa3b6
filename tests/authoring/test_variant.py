"""gradekit.authoring.variant and gradekit.authoring.template: seeds, params, rendering."""

from __future__ import annotations

import json
import os
import stat
import shutil

import nbformat
import pytest

from conftest import ASSIGNMENT, NOTEBOOK, SECRET
from gradekit.course import Course
from gradekit.errors import CourseError, TemplateError, UsageError
from gradekit.authoring.template import AssignmentSource
from gradekit.authoring.variant import build_variant, student_seed


def _variant(course, student, secret=None):
    c = course.course
    return build_variant(c, AssignmentSource.load(c, ASSIGNMENT), student, secret)


def test_seed_differs_per_student_and_per_assignment():
    seeds = {student_seed(b"k", "course", a, s) for a in ("hw1", "hw2") for s in ("alice", "bob", "carol")}
    assert len(seeds) == 6
    assert student_seed(b"k", "course", "hw1", "alice") == student_seed(b"k", "course", "hw1", "alice")
    assert student_seed(b"k", "course", "hw1", "alice") != student_seed(b"k", "course2", "hw1", "alice")


def test_variants_differ_per_student(course):
    a, b = _variant(course, "alice"), _variant(course, "bob")
    assert a.seed != b.seed
    assert a.params["X"] != b.params["X"]
    setup_a = next(c for c in a.notebooks[NOTEBOOK].cells if c.metadata.nbgrader["grade_id"] == "setup")
    setup_b = next(c for c in b.notebooks[NOTEBOOK].cells if c.metadata.nbgrader["grade_id"] == "setup")
    assert setup_a.source != setup_b.source


def test_variants_differ_per_assignment(course):
    shutil.copytree(course.root / "source" / ASSIGNMENT, course.root / "source" / "self_attention_b")
    c = course.course
    one = build_variant(c, AssignmentSource.load(c, ASSIGNMENT), "alice")
    two = build_variant(c, AssignmentSource.load(c, "self_attention_b"), "alice")
    assert one.seed != two.seed
    assert one.params != two.params


def test_same_id_gives_the_same_notebooks(course):
    one, two = _variant(course, "carol"), _variant(course, "carol")
    assert one.seed == two.seed
    assert one.params == two.params
    assert nbformat.writes(one.notebooks[NOTEBOOK]) == nbformat.writes(two.notebooks[NOTEBOOK])
    # and the released files are byte-identical across two generate runs
    course.generate("carol")
    first = course.release_path("carol").read_bytes()
    course.generate("carol")
    assert course.release_path("carol").read_bytes() == first


def test_params_are_rendered_into_the_notebook(course):
    v = _variant(course, "alice")
    setup = next(c for c in v.notebooks[NOTEBOOK].cells if c.metadata.nbgrader["grade_id"] == "setup")
    assert "{{" not in setup.source and "{%" not in setup.source
    ns: dict = {}
    exec(setup.source, ns)
    assert ns["X"].tolist() == v.params["X"]
    assert ns["c"] == v.params["c"]


def test_secret_changes_the_seeds(course, monkeypatch):
    before = _variant(course, "alice")
    monkeypatch.setenv("GRADEKIT_SECRET", SECRET + "-other")
    after = _variant(course, "alice")
    assert before.seed != after.seed
    assert before.params["X"] != after.params["X"]
    # an explicit secret wins over the environment
    assert _variant(course, "alice", SECRET.encode()).seed == before.seed


def test_course_id_is_part_of_the_seed(course):
    before = _variant(course, "alice")
    config = course.root / "nbgrader_config.py"
    config.write_text(config.read_text().replace('"transformers101"', '"transformers102"'))
    assert course.course.course_id == "transformers102"
    assert _variant(course, "alice").seed != before.seed


def test_secret_file_is_created_private_when_no_env_var(course, monkeypatch):
    monkeypatch.delenv("GRADEKIT_SECRET", raising=False)
    path = course.root / ".gradekit" / "secret"
    assert not path.exists()
    secret = course.course.secret()
    assert path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0
    assert len(secret) >= 32
    # stable: the same secret on the next use, and the variants follow it
    assert course.course.secret() == secret
    v1 = _variant(course, "alice")
    v2 = _variant(course, "alice")
    assert v1.seed == v2.seed == student_seed(secret, "transformers101", ASSIGNMENT, "alice")
    # the environment variable overrides the file
    monkeypatch.setenv("GRADEKIT_SECRET", SECRET)
    assert course.course.secret() == SECRET.encode()


def test_secret_file_is_private_despite_a_permissive_umask(course, monkeypatch):
    monkeypatch.delenv("GRADEKIT_SECRET", raising=False)
    old = os.umask(0)
    try:
        course.course.secret()
    finally:
        os.umask(old)
    path = course.root / ".gradekit" / "secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_empty_secret_file_is_an_error(course, monkeypatch):
    monkeypatch.delenv("GRADEKIT_SECRET", raising=False)
    path = course.root / ".gradekit" / "secret"
    path.parent.mkdir()
    path.write_text("\n")
    with pytest.raises(CourseError, match="empty"):
        course.course.secret()


def test_once_notebooks_are_handed_out_another_secret_is_refused(course, monkeypatch, capsys):
    """A forgotten $GRADEKIT_SECRET (a new .gradekit/secret would be made) or another one would
    grade every student against numbers they never saw: after `generate`, both are one line and
    exit 3, and nothing is written; the secret the notebooks were made with goes on working."""
    course.generate()
    check = course.root / ".gradekit" / "secret.check"
    assert check.is_file() and SECRET not in check.read_text()          # a digest, not the secret
    monkeypatch.delenv("GRADEKIT_SECRET")
    assert course.cli("generate", ASSIGNMENT) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no course secret" in err, err
    assert not (course.root / ".gradekit" / "secret").exists()           # no new secret was made
    monkeypatch.setenv("GRADEKIT_SECRET", SECRET + "-other")
    before = course.release_path("alice").read_bytes()
    assert course.cli("generate", ASSIGNMENT) == 3
    err = capsys.readouterr().err.strip()
    assert "$GRADEKIT_SECRET" in err and "is not the one this course's notebooks were generated with" in err, err
    assert course.release_path("alice").read_bytes() == before
    monkeypatch.setenv("GRADEKIT_SECRET", SECRET)
    assert course.cli("generate", ASSIGNMENT) == 0
    # starting over on purpose: delete the check, and the new secret is the course's from then on
    check.unlink()
    monkeypatch.setenv("GRADEKIT_SECRET", SECRET + "-other")
    assert course.cli("generate", ASSIGNMENT) == 0
    assert course.release_path("alice").read_bytes() != before
    monkeypatch.setenv("GRADEKIT_SECRET", SECRET)
    with pytest.raises(CourseError):
        course.course.secret()
    # a $GRADEKIT_SECRET left over from another course, where the course's own file is right
    (course.root / ".gradekit" / "secret").write_text(SECRET + "-other")
    with pytest.raises(CourseError, match=r"another course's\? unset it to use \.gradekit/secret"):
        course.course.secret()
    monkeypatch.delenv("GRADEKIT_SECRET")
    assert course.course.secret() == (SECRET + "-other").encode()
    # a check file cut short (a crash while it was written by an older version) protects, not waves through
    check.write_text("")
    with pytest.raises(CourseError, match="is not the one"):
        course.course.secret()


@pytest.mark.parametrize("bad", ["../alice", "", ".", "a/b", "alice bob", "-rf"])
def test_invalid_student_ids_are_rejected(course, bad):
    with pytest.raises(UsageError, match="invalid student id"):
        _variant(course, bad)


def _edit_cell(course, grade_id, new_source):
    path = course.root / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            cell.source = new_source(cell.source)
    nbformat.write(nb, str(path))


def test_unknown_template_name_raises_template_error(course):
    _edit_cell(course, "setup", lambda s: s + "\nY = {{ no_such_param }}\n")
    c = course.course
    source = AssignmentSource.load(c, ASSIGNMENT)
    with pytest.raises(TemplateError, match="no_such_param"):
        build_variant(c, source, "alice")


def test_unknown_attribute_in_template_raises_template_error(course):
    _edit_cell(course, "setup", lambda s: s + "\nY = {{ X.no_such_field }}\n")
    c = course.course
    with pytest.raises(TemplateError):
        build_variant(c, AssignmentSource.load(c, ASSIGNMENT), "alice")


def test_template_syntax_error_raises_template_error(course):
    _edit_cell(course, "setup", lambda s: s + "\nY = {{ X | array \n")
    with pytest.raises(TemplateError, match="syntax"):
        AssignmentSource.load(course.course, ASSIGNMENT)


def test_unknown_template_name_is_one_line_in_the_cli(course, capsys):
    _edit_cell(course, "setup", lambda s: s + "\nY = {{ no_such_param }}\n")
    assert course.cli("generate", ASSIGNMENT) == 3  # a course failure
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no_such_param" in err and "Traceback" not in err


def _write_params(course, body):
    (course.root / "source" / ASSIGNMENT / "params.py").write_text(
        "import numpy as np\n\ndef generate(rng):\n" + body)


@pytest.mark.parametrize("body", [
    "    return {'X': np.zeros((2, 2))}\n",          # an ndarray
    "    return {'x': float('nan')}\n",              # not valid JSON
    "    return {'x': {1, 2}}\n",                    # a set
    "    return {'x': object()}\n",
])
def test_params_must_be_json(course, body):
    _write_params(course, body)
    c = course.course
    with pytest.raises(TemplateError, match="JSON"):
        build_variant(c, AssignmentSource.load(c, ASSIGNMENT), "alice")


def test_params_numpy_integers_are_not_json(course):
    _write_params(course, "    return {'n': np.int64(3)}\n")
    c = course.course
    with pytest.raises(TemplateError, match="JSON"):
        build_variant(c, AssignmentSource.load(c, ASSIGNMENT), "alice")


def test_params_roundtrip_through_json(course):
    v = _variant(course, "dave")
    assert json.loads(json.dumps(v.params)) == v.params


def test_broken_params_module_is_a_template_error(course):
    (course.root / "source" / ASSIGNMENT / "params.py").write_text("def generate(rng):\n    return {\n")
    with pytest.raises(TemplateError, match="params.py"):
        AssignmentSource.load(course.course, ASSIGNMENT)
    (course.root / "source" / ASSIGNMENT / "params.py").write_text("x = 1\n")
    with pytest.raises(TemplateError, match="generate"):
        AssignmentSource.load(course.course, ASSIGNMENT)


def test_unknown_assignment_is_a_course_error(course):
    with pytest.raises(UsageError, match="unknown assignment"):
        AssignmentSource.load(course.course, "no_such_assignment")


def test_not_a_course_directory(tmp_path):
    with pytest.raises(UsageError, match="not a course directory"):
        Course.load(tmp_path)
