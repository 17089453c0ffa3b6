"""``gradekit check``'s rows on what a student sees of the assignment before and after its due date.

Under ``gradekit serve`` a student reads their feedback seconds after each hand-in.
Before the due date, the assignment's settings (:mod:`gradekit.settings`) hide the
correctness of some test cells -- by default every cell whose answer is a value, which
instant feedback would turn into an oracle. These rows say which, and warn when the
assignment has no due date: then nothing waits for one, and every value answer shows
its correctness at once.
"""

from __future__ import annotations

from gradekit.course import Course
from gradekit.qa.rows import CheckReport, Row


def disclosure_rows(course: Course, assignment: str, report: CheckReport) -> None:
    """The settings' rows: where they come from, what shows before the due date and after it, and
    the warning of value answers with no due date to hide them until."""
    settings = course.settings_of(assignment)
    seen = settings.visibility()
    where = f"source/{assignment}/assignment.toml"
    if settings.file is None:
        origin = f"no {where}: the course's settings (c.Gradekit in nbgrader_config.py) and gradekit's defaults"
    elif settings.set_here:
        origin = f"{where} sets {', '.join(sorted(settings.set_here))}; the rest are the course's"
    else:
        origin = f"{where} sets nothing: the course's settings"
    report.rows.append(Row("settings", None, origin))
    policy = f"{_attempts(settings.attempts)}, the {settings.counts} one counts" + (
        f", at most one every {settings.min_interval:g} s" if settings.min_interval else ""
    )
    report.rows.append(Row("before the due date (gradekit serve)", None, f"{seen.before()}; {policy}"))
    report.rows.append(Row("after the due date", None, seen.after()))
    values = list(seen.hidden)
    if not values:
        return
    from gradekit.gradebook.read import duedate

    try:
        due = duedate(course, assignment)
    except Exception:  # noqa: BLE001 - a gradebook that cannot be read: the warning stands
        due = None
    if due is None:
        report.rows.append(
            Row(
                "a due date to hide the value answers until",
                None,
                f"{assignment} has no due date in the gradebook: under gradekit serve nothing waits for it, and "
                f"whether {', '.join(values)} {'is' if len(values) == 1 else 'are'} right would show at once (an "
                f"oracle: a student hands in until a number is right). Set one: nbgrader db assignment add "
                f'{assignment} --duedate="YYYY-MM-DD HH:MM:SS UTC"',
                warn=True,
            )
        )
    else:
        report.rows.append(Row("a due date to hide the value answers until", True, f"{due:%Y-%m-%d %H:%M} UTC"))


def _attempts(n: int) -> str:
    return "every hand-in graded" if not n else f"{n} graded hand-in(s) per student"
