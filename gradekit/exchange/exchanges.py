"""Which exchange a course hands out and takes in through: ``c.Gradekit.exchange``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course
    from gradekit.exchange.base import CourseExchange


def exchange_of(course: Course) -> CourseExchange:
    """The course's exchange: ``c.Gradekit.exchange``, "filesystem" (nbgrader's folders, gradekit's
    modes: the default) or "hub" (gradekit's hub exchange service)."""
    if str(getattr(course.settings, "exchange", "") or "filesystem") == "hub":
        from gradekit.exchange.hub.course import HubExchange

        return HubExchange(course)
    from gradekit.exchange.filesystem.course import FilesystemExchange

    return FilesystemExchange(course)
