"""What the verbs share: the course of ``--course``, the class of ``--student``, and warnings."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from gradekit.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover - the parser imports every verb: nothing heavier than it needs
    from gradekit.course import Course


def course_of(args) -> Course:
    from gradekit.course import Course

    return Course.load(args.course)


def class_of(course: Course, args) -> list[str]:
    """The students named with --student (each in the gradebook), else the gradebook's: at least one."""
    from gradekit.gradebook import read

    course.source_of(args.assignment)
    students = read.require_students(course, args.student) if args.student else read.students(course)
    if not students:
        from gradekit.lti.platform import FILE, folder

        if (folder(course) / FILE).is_file():  # an LMS course: its roster, with the usernames launches gave
            raise UsageError(
                "no students in the gradebook: run `gradekit lti roster` after the students' first launch "
                "from the LMS (it gives their usernames), then run this again"
            )
        raise UsageError(
            "no students in the gradebook: add them with `nbgrader db student import roster.csv` "
            "(or `nbgrader db student add ID`), then run this again"
        )
    return students


def warn_untranslated(course: Course, assignment: str, students: list[str]) -> None:
    """A line on stderr for each language some students read that the assignment's catalog
    leaves (partly) in English."""
    from gradekit.authoring.languages import untranslated

    for language, (readers, left) in untranslated(course, assignment, students).items():
        po = f"source/{assignment}/locale/{language}.po"
        what = (
            f"{assignment} has no {po}: their notebooks are in English"
            if left is None
            else f"{po} leaves {left} text(s) untranslated or fuzzy: those are in English"
        )
        print(
            f"warning: {readers} student(s) read {language}, but {what}. `gradekit translate {assignment} "
            f"--language {language}` lists them; translate them and generate again.",
            file=sys.stderr,
        )
