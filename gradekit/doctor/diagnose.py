"""``gradekit doctor``: is this course's deployment private and sound? One line per problem, with its fix.

What is checked, in this order (each part is a module of gradekit.doctor, which says what it checks):

    course.py     the course's private files: no other account reads them; on the filesystem
                  exchange, the exchange's folders and their modes
    students.py   the students' Python and what it holds, the collect class, every roster home
    hub.py        on the hub exchange, the service and what the students' account reads; given the
                  hub's config, the hub itself (and the students' tokens' scopes, on the hub exchange)
    isolation.py  on the hub exchange, whether the students' servers, all one account, are kept apart
"""

from __future__ import annotations

from pathlib import Path

from gradekit.doctor import isolation
from gradekit.doctor.access import Problem
from gradekit.doctor.course import course_problems, exchange_problems
from gradekit.doctor.hub import _hub_config, hub_exchange_config_problems, hub_exchange_problems, hub_problems
from gradekit.doctor.students import copied_problems, home_problems, student_problems


def diagnose(
    course, python: Path | None = None, hub_config: Path | None = None, student_account: str | None = None
) -> list[Problem]:
    hub = hub_problems(hub_config) if hub_config else []
    if str(getattr(course.settings, "exchange", "") or "filesystem") == "hub":
        return (
            course_problems(course)
            + hub_exchange_problems(course, student_account)
            + [Problem(*p) for p in isolation.problems(course, hub_config, student_account, _hub_config)]
            + (hub_exchange_config_problems(course, hub_config) if hub_config else [])
            + copied_problems(course, python)
            + hub  # no homes: the students are hub logins, not Unix accounts (one of the same name is someone else)
        )
    return (
        course_problems(course)
        + exchange_problems(course)
        + student_problems(course, python)
        + copied_problems(course, python)
        + home_problems(course)
        + hub
    )
