"""A graded class made quickly, for the grading page's tests and bench: the quiz's free-text answers
written by bench/synth_answers.py (six kinds of answer per question, half in Chinese), numbers
with known verdicts, and the gradebook rows autograde would write -- without grading anything.

    build(root, n, seed) -> (CourseDir, {cell: {student: kind}})

Each student gets: a row in the gradebook, the release (gradekit generate registers the
assignment), autograded/<student>/self_attention/quiz.ipynb holding their answer cells, and a
results.json whose quiz cells are those autograde writes (manual cells waiting, test_tq1 right,
named as a known mistake or unexplained). The exercise notebook is left ungraded.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests"))

from conftest import ASSIGNMENT, CourseDir  # noqa: E402
from synth_answers import make_class  # noqa: E402

MANUAL = {"tq1_explain": 2.0, "tq5_explain": 1.0}
TQ1_MISTAKES = ["weights from the lecture's numbers, not yours", "the output was not scaled by c"]


def _quiz_cells(course: CourseDir) -> list[dict]:
    nb = json.loads((course.root / "source" / ASSIGNMENT / "quiz.ipynb").read_text())
    return [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")]


def build(root: Path, n: int, seed: int = 1, zh_share: float = 0.5):
    from gradekit.course import Course
    from gradekit.gradebook import sql_write
    from gradekit.results import CellResult, NotebookResult, SubmissionResult

    students = [f"s{i:05d}" for i in range(n)]
    course = CourseDir.create(root, students=(), quiz=True)
    db = sqlite3.connect(str(course.root / "gradebook.db"))
    db.executemany("INSERT INTO student (id) VALUES (?)", [(s,) for s in students])
    db.commit()
    db.close()
    texts = {q: make_class(n, seed, q, "dev", zh_share=zh_share) for q in MANUAL}
    languages = {students[i]: texts["tq1_explain"][i]["language"] for i in range(n)}
    (course.root / "languages.csv").write_text(
        "student_id,language\n" + "".join(f"{s},{lang}\n" for s, lang in languages.items())
    )
    assert course.cli("generate", ASSIGNMENT) == 0
    graded = _quiz_cells(course)
    rng = random.Random(seed)
    kinds: dict[str, dict[str, str]] = {q: {} for q in [*MANUAL, "tq1"]}
    real = Course.load(course.root)
    for i, student in enumerate(students):
        folder = course.root / "autograded" / student / ASSIGNMENT
        folder.mkdir(parents=True, exist_ok=True)
        cells = []
        for cell in graded:
            meta = cell["metadata"]["nbgrader"]
            gid, points = meta["grade_id"], float(meta.get("points", 0))
            if gid in MANUAL:
                cells.append(CellResult(gid, points, None, manual=True))
            elif gid == "test_tq1":
                r = rng.random()
                if r < 0.7:
                    kinds["tq1"][student] = "right"
                    cells.append(CellResult(gid, points, points))
                elif r < 0.85:
                    kinds["tq1"][student] = TQ1_MISTAKES[0]
                    cells.append(CellResult(gid, points, 1.0, diagnosis=[TQ1_MISTAKES[0]]))
                elif r < 0.95:
                    kinds["tq1"][student] = TQ1_MISTAKES[1]
                    cells.append(CellResult(gid, points, 2.0, diagnosis=[TQ1_MISTAKES[1]]))
                else:
                    kinds["tq1"][student] = "unexplained"
                    cells.append(CellResult(gid, points, 0.0))
            else:
                cells.append(CellResult(gid, points, points))
        nb = json.loads((course.root / "release" / student / ASSIGNMENT / "quiz.ipynb").read_text())
        for cell in nb["cells"]:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if gid in MANUAL:
                kinds[gid][student] = texts[gid][i]["kind"]
                cell["source"] = texts[gid][i]["text"]
            elif gid == "tq1":
                cell["source"] = "tq1_weights = [0.6, 0.4]\ntq1_output = [1.2, 0.8]\ntq1_weights_change = 'no'\n"
        (folder / "quiz.ipynb").write_text(json.dumps(nb))
        result = SubmissionResult(student, ASSIGNMENT, [NotebookResult("quiz", cells)],
                                  timestamp="2026-11-20 10:00:00 UTC", language=languages[student])
        (folder / "results.json").write_text(json.dumps(result.to_dict()))
        assert sql_write.record(real, result), student
    return course, kinds
