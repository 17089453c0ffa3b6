"""Checking a course before it grades anything: the templates render, the course's Python compiles.

Run by every :class:`~gradekit.grading.pipeline.Pipeline` as it loads the assignment,
in the grading process (so a command that has nothing to grade never pays
for it, and a pool pays for it once, in its fork server). A failure is a
:class:`~gradekit.errors.CourseFailure` naming the file and line: the run
stops before the first submission is graded.
"""

from __future__ import annotations

from pathlib import Path

from gradekit.course import Course
from gradekit.errors import GraderError


def preflight(course: Course, assignment: str, source=None) -> None:
    """Stop a broken course before any submission is graded.

    The templates compile and render a variant (StrictUndefined) in every
    language the course's students read (``languages.csv`` is checked too), and every
    Python file of the graders and the reference compiles; the error names
    the file and line. (Graders that compile but fail to import are caught
    when the grading processes collect them, still before any grade is recorded.)
    ``source``: the assignment's already loaded :class:`~gradekit.authoring.template.AssignmentSource`.
    """
    from gradekit.authoring.languages import default_language, student_languages
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    source = source or AssignmentSource.load(course, assignment)
    for language in sorted({default_language(course), *student_languages(course).values()}):
        build_variant(course, source, "gradekit-preflight", language=language)
    graders = course.graders_dir(assignment)
    files = sorted(graders.glob("**/*.py")) if graders.is_dir() else []
    files += [p for p in [course.solutions_dir(assignment) / "reference.py"] if p.is_file()]
    for path in files:
        if any(part in ("mistakes", "correct", "__pycache__") for part in path.relative_to(course.root).parts):
            continue  # the QA set holds notebook cells, not grader code
        compile_or_fail(path, course.root)


def compile_or_fail(path: Path, root: Path) -> None:
    """Compile a course file; raise GraderError naming ``file:line: message``."""
    try:
        source = path.read_bytes()
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = _relative(path, root)
        raise GraderError(f"{where}:{exc.lineno or '?'}: {exc.msg}") from None
    except (OSError, ValueError) as exc:
        raise GraderError(f"{_relative(path, root)}: cannot be read ({exc})") from None


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)
