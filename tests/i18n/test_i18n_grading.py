"""Grading in two languages: the same answers get the same grades, and a zh student reads Chinese.

Every file of both assignments' QA sets (classic mistakes and right answers written
differently) is graded on one simulated student's variant twice, as an English and
as a Chinese student; then the release, ``nbgrader validate`` and incremental
grading of a course whose languages.csv names a Chinese student.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from gradekit.grading.diagnosis import notes as notes_of

from conftest import REPO, VENV_BIN

pytestmark = pytest.mark.e2e

CJK = re.compile(r"[\u4e00-\u9fff]")
ASSIGNMENTS = ["self_attention", "multi_head_attention", "long_context"]


def _comparable(result) -> dict:
    data = result.to_dict()
    for key in ("seconds", "student_seconds", "startup_seconds", "digest", "timestamp", "language", "translations"):
        data.pop(key)
    for nb in data["notebooks"]:
        # what the graded notebook holds: both gradings read one English submission, so the Chinese
        # student's locked cells are put back in Chinese (a note), and the stubs are in each one's language
        nb.pop("notes")
        for cell in nb["cells"]:
            cell.pop("answer")
    return data


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def both_languages(request, tmp_path_factory):
    """Every QA file of the assignment graded as an English and as a Chinese student:
    [(the QA files in the submission, the en result, the zh result)]."""
    from gradekit.course import Course
    from gradekit.grading.options import Options
    from gradekit.grading.pipeline import Pipeline
    from gradekit.qa import simulate
    from gradekit.release.stripper import Stripper
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    assignment = request.param
    with simulate.simulated_course(Course.load(REPO), assignment) as qa:
        student = simulate.students(1)[0]
        source = AssignmentSource.load(qa, assignment)
        variant = build_variant(qa, source, student, language="en")
        key = {name: Stripper("en").answer_key(nb) for name, nb in variant.notebooks.items()}
        files, problems = simulate.load_qa_set(qa.graders_dir(assignment), variant.notebooks)
        assert not problems and len(files) > 20
        groups = simulate.groups([f for f in files if f.kind == "mistakes"])
        groups += [[f] for f in files if f.kind == "correct"]
        pipeline = Pipeline(qa, assignment, Options(jobs=1))
        out = []
        try:
            for index, group in enumerate(groups):
                sections = {gid: code for f in group for gid, code in f.sections.items()}
                folder = simulate.write_submission(qa.root / "subs" / f"{index:03d}", simulate.fill(key, sections))
                graded = {lang: pipeline.grade(student, folder, qa.root / "out" / lang / f"{index:03d}", lang)
                          for lang in ("en", "zh")}
                out.append((group, graded["en"], graded["zh"], qa.root / "out" / "zh" / f"{index:03d}"))
        finally:
            pipeline.close()
        yield assignment, out


def test_the_qa_set_gets_identical_grades_in_both_languages(both_languages):
    assignment, graded = both_languages
    for group, en, zh, _folder in graded:
        labels = [f.label for f in group]
        assert en.language == "en" and zh.language == "zh" and not en.translations
        assert _comparable(en) == _comparable(zh), labels     # grades, checks, diagnosis: all the same
        assert zh.score == en.score
        if group[0].kind == "correct":
            assert all(c.passed for nb in en.notebooks for c in nb.cells if not c.manual), labels


def test_a_zh_student_reads_the_named_mistake_in_chinese(both_languages):
    from gradekit.i18n.catalogs import translator
    from gradekit.i18n.text import View

    assignment, graded = both_languages
    named = 0
    for group, en, zh, _folder in graded:
        view = View("zh", zh.translations, translator(REPO, assignment, "zh"))
        for nb in zh.notebooks:
            for cell in nb.cells:
                if not cell.diagnosis:
                    continue
                notes = " ".join(notes_of(cell, view))
                english_notes = " ".join(notes_of(cell))
                failed = [k.message for k in cell.checks if not k.passed]
                if not notes:   # a multiple-choice item (check.option): its check's message names the misconception
                    assert failed and all(any(r in m for r in cell.diagnosis) for m in failed), (cell.grade_id, failed)
                    notes, english_notes = " ".join(view(m) for m in failed), " ".join(failed)
                assert CJK.search(notes) and "Likely mistake" not in notes, notes
                for route in cell.diagnosis:      # the catalogue name stays English; the student reads Chinese
                    assert CJK.search(view(route)), f"{route!r} has no Chinese"
                    assert view(route) in notes and route in english_notes, (route, notes)
                named += 1
                for check in cell.checks:
                    if not check.passed:
                        shown = view(check.message)
                        assert CJK.search(shown) and shown != check.message, check.message
    assert named >= 15


def test_a_zh_graded_notebook_speaks_chinese(both_languages):
    assignment, graded = both_languages
    group, en, zh, folder = next(g for g in graded if g[0][0].kind == "mistakes")
    outputs = []
    for path in folder.glob("*.ipynb"):
        nb = nbformat.read(str(path), as_version=4)
        outputs += [o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(outputs)
    assert "隐藏测试：" in text and "[未通过]" in text and "Hidden tests" not in text, text[:300]


# -- a course with a Chinese student ---------------------------------------------------------------

@pytest.fixture
def bilingual(course_factory):
    course = course_factory(students=("alice", "bob"))
    (course.root / "languages.csv").write_text("student_id,language\nalice,zh\nbob,en\n", encoding="utf-8")
    course.generate()
    return course


def test_generate_gives_each_student_their_language(bilingual):
    zh, en = bilingual.release("alice"), bilingual.release("bob")
    assert CJK.search(zh.cells[0].source) and not CJK.search(en.cells[0].source)
    assert len(zh.cells) == len(en.cells)
    stub = next(c.source for c in zh.cells if c.metadata.get("nbgrader", {}).get("solution"))
    assert "# 在这里写你的代码" in stub and "raise NotImplementedError()" in stub


def test_nbgrader_validate_speaks_the_students_language(bilingual, tmp_path):
    key = bilingual.answer_key("alice")
    for cell in key.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "project_qkv":
            cell.source = cell.source.replace("Q = X @ np.asarray(W_q, dtype=float)",
                                              "Q = X @ np.asarray(W_k, dtype=float)")
    path = tmp_path / "self_attention.ipynb"
    nbformat.write(key, str(path))
    proc = bilingual.run(str(VENV_BIN / "nbgrader"), "validate", str(path), check=False)
    out = proc.stdout + proc.stderr
    assert "Q 看起来是 X @ W_k：是不是把 Q 和 K 弄反了？" in out, out[-2000:]


def test_a_changed_language_regrades(bilingual):
    bilingual.submit("alice", bilingual.answer_key("alice"))
    assert bilingual.autograde("alice") == 0
    first = bilingual.results_json("alice")
    assert first["language"] == "zh" and first["digest"]
    (bilingual.root / "languages.csv").write_text("student_id,language\nalice,en\n", encoding="utf-8")
    assert bilingual.autograde("alice") == 0
    second = bilingual.results_json("alice")
    assert second["language"] == "en" and second["digest"] != first["digest"]
    assert [c["score"] for c in second["notebooks"][0]["cells"]] == [c["score"] for c in first["notebooks"][0]["cells"]]
