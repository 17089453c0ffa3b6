"""Which exchange a course hands out and takes in through: ``c.Gradekit.exchange``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course
    from gradekit.exchange.base import CourseExchange


def exchange_of(course: Course, here: Path | None = None) -> CourseExchange:
    """The course's exchange: ``c.Gradekit.exchange``, "filesystem" (nbgrader's folders, gradekit's
    modes: the default) or "hub" (gradekit's hub exchange service). ``here``: the filesystem exchange's
    folder of the course, as an nbgrader step was given it (default: the course's config's)."""
    if str(getattr(course.settings, "exchange", "") or "filesystem") == "hub":
        from gradekit.exchange.hub.course import HubExchange

        return HubExchange(course)
    from gradekit.exchange.filesystem.course import FilesystemExchange

    return FilesystemExchange(course, here)
