"""gradekit.release.preprocessors against nbgrader's own preprocessors: the oracle.

gradekit strips every release with its own copy of nbgrader's steps; these
tests hold it to nbgrader byte for byte -- the notebook JSON as written, key
order included -- on every notebook of both shipped assignments for many
students, on hand-made cells that reach every rule, and check that what it
does not handle goes to nbgrader (which raises its own errors).
"""

from __future__ import annotations

import copy
import json
import shutil

import nbformat
import pytest

from conftest import REPO
from gradekit.release import preprocessors as strip
from gradekit.atomic import notebook_json
from gradekit.release.stripper import NbgraderStripper, Stripper

VERSIONS = ("student_version", "registration_version", "answer_key")
ASSIGNMENTS = ("self_attention", "multi_head_attention", "long_context")


@pytest.fixture(scope="module")
def nbgrader():
    return NbgraderStripper()


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    """The rendered notebooks of 40 students of each shipped assignment (quiz included)."""
    from gradekit.course import Course
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    root = tmp_path_factory.mktemp("strip-course")
    shutil.copy(REPO / "nbgrader_config.py", root)
    shutil.copytree(REPO / "source", root / "source", ignore=shutil.ignore_patterns("__pycache__"))
    course = Course.load(root)
    out = []
    for assignment in ASSIGNMENTS:
        source = AssignmentSource.load(course, assignment)
        for i in range(40):
            variant = build_variant(course, source, f"s{i:03d}", b"oracle-secret")
            out += [(assignment, name, nb) for name, nb in variant.notebooks.items()]
    assert {name for _, name, _ in out} >= {"self_attention", "quiz", "multi_head_attention", "long_context"}
    return out


def _both(nb, version, nbgrader):
    ours = getattr(strip, version)(nbformat.from_dict(copy.deepcopy(nb)))
    theirs = getattr(nbgrader, version)(nbformat.from_dict(copy.deepcopy(nb)))
    return notebook_json(ours), notebook_json(theirs)


@pytest.mark.parametrize("version", VERSIONS)
def test_the_shipped_assignments_strip_as_nbgrader_strips_them(variants, nbgrader, version):
    differing = set()
    for assignment, name, nb in variants:
        ours, theirs = _both(nb, version, nbgrader)
        if ours != theirs:
            differing.add(f"{assignment}/{name}")
    assert not differing, f"{version} differs from nbgrader's for {sorted(differing)}"


def _cell(kind, source, nbgrader=None, **metadata):
    cell = nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source)
    if nbgrader is not None:
        metadata["nbgrader"] = nbgrader
    cell.metadata.update(metadata)
    return cell


def _meta(gid, grade=False, solution=False, locked=False, points=None, **more):
    meta = {"grade_id": gid, "grade": grade, "solution": solution, "locked": locked, **more}
    if points is not None:
        meta["points"] = points
    return meta


def _odd_notebook():
    """Cells that reach each rule of the five steps."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    nb.metadata["celltoolbar"] = "Create Assignment"
    run = nbformat.v4.new_code_cell("print(1)", execution_count=3,
                                    outputs=[nbformat.v4.new_output("stream", name="stdout", text="1\n")])
    run.metadata.update({"collapsed": True, "scrolled": False, "tags": ["keep"]})
    nb.cells = [
        run,
        _cell("code", "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n",
              _meta("f", solution=True)),
        _cell("code", "x = 1\n", _meta("whole", solution=True)),                     # a whole solution cell
        _cell("markdown", "My answer.", _meta("essay", grade=True, solution=True, points=2)),
        _cell("markdown", "Intro\n=== BEGIN SOLUTION\nsecret\n=== END SOLUTION\nafter",
              _meta("md", solution=True)),
        _cell("code", "assert f(1) == 1\n### BEGIN HIDDEN TESTS\nassert f(2) == 2\n### END HIDDEN TESTS\n",
              _meta("test_f", grade=True, points=3)),
        _cell("code", "assert True\n  ### END HIDDEN TESTS  \nstray end", _meta("test_g", grade=True, points="1.5")),
        _cell("code", "CONST = 2\n", _meta("setup", locked=True), deletable=True),
        _cell("markdown", "read only", _meta("ro", locked=True)),
        _cell("code", "free = 1\n", {}),                                            # nbgrader metadata, empty
        _cell("code", "y = 2\n", _meta("graded-solution", grade=True, solution=True, points=1), editable=True),
    ]
    return nb


@pytest.mark.parametrize("version", VERSIONS)
def test_every_rule_strips_as_nbgrader(nbgrader, version):
    ours, theirs = _both(_odd_notebook(), version, nbgrader)
    assert ours == theirs
    assert "celltoolbar" not in json.loads(ours)["metadata"] or version == "answer_key"


@pytest.mark.parametrize("source, kind, meta", [
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\nx\n### END SOLUTION\n", "code", _meta("a", solution=True)),
    ("### BEGIN SOLUTION\nx = 1\n", "code", _meta("a", solution=True)),
    ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "code", _meta("a")),          # not a solution cell
    ("### BEGIN HIDDEN TESTS\nassert 1\n", "code", _meta("t", grade=True, points=1)),
    ("### BEGIN HIDDEN TESTS\nassert 1\n### END HIDDEN TESTS\n", "code", _meta("t", locked=True)),
])
def test_what_strip_does_not_handle_goes_to_nbgrader(source, kind, meta):
    nb = nbformat.v4.new_notebook()
    nb.cells = [_cell(kind, source, meta)]
    with pytest.raises(strip.Unsupported):
        strip.student_version(nbformat.from_dict(copy.deepcopy(nb)))
    with pytest.raises(RuntimeError) as ours:
        Stripper().student_version(nbformat.from_dict(copy.deepcopy(nb)))
    with pytest.raises(RuntimeError) as theirs:
        NbgraderStripper().student_version(nbformat.from_dict(copy.deepcopy(nb)))
    assert str(ours.value) == str(theirs.value)


def test_another_kernel_language_goes_to_nbgrader():
    nb = _odd_notebook()
    nb.metadata["kernelspec"]["language"] = "R"
    with pytest.raises(strip.Unsupported):
        strip.student_version(nbformat.from_dict(copy.deepcopy(nb)))
    ours = Stripper().student_version(nbformat.from_dict(copy.deepcopy(nb)))
    theirs = NbgraderStripper().student_version(nbformat.from_dict(copy.deepcopy(nb)))
    assert notebook_json(ours) == notebook_json(theirs)
    assert "fail()" in notebook_json(ours)   # R's stub: nbgrader did it


@pytest.mark.parametrize("version", ["student_version", "registration_version"])
def test_a_chinese_release_strips_as_nbgrader_strips_it(variants, version):
    """The stubs that replace the answers are the student's language's (YOUR CODE HERE translated)."""
    ours_stripper, theirs_stripper = Stripper("zh"), NbgraderStripper("zh")
    assert ours_stripper._stubs[0] != strip.CODE_STUB   # the catalog has it: this compares translated stubs
    for assignment, name, nb in variants[:6]:
        ours = getattr(ours_stripper, version)(nbformat.from_dict(copy.deepcopy(nb)))
        theirs = getattr(theirs_stripper, version)(nbformat.from_dict(copy.deepcopy(nb)))
        assert notebook_json(ours) == notebook_json(theirs), f"{assignment}/{name}"
