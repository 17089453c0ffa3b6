"""Which exchange a course hands out and takes in through: ``c.Gradekit.exchange``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course
    from gradekit.handout.base import CourseExchange


def exchange_of(course: Course) -> CourseExchange:
    """The course's exchange: the filesystem exchange (nbgrader's folders, gradekit's modes)."""
    from gradekit.handout.filesystem import FilesystemExchange

    return FilesystemExchange(course)
