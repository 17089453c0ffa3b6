"""The exchange interface: what a course needs from an exchange, whichever one it is.

    releases out     publish(assignment, force, student)   each student's own variant, to that student alone;
                     released()                            the assignments out there
    hand-ins in      events(poll)                          hints that hand-ins arrived (an event, or a full look);
                     look(hints, assignments)              the hand-ins, read and judged: who handed each in and
                                                           when, as the exchange vouches for it (a Handin with
                                                           its HandinRef; refused, with its reason, where it
                                                           breaks a rule)
    feedback back    give_feedback(student, assignment,    a graded hand-in's pages (the student's copy), to its
                     submission, pages)                    student alone, where their fetch finds them; its one
                                                           caller is gradekit.service.delivery, which every way
                                                           back goes through
                     feedback_given(assignment,            the students whose pages of the hand-in collected in
                     submissions)                          their submission are out already: one look a class
    what a student   listing(student)                      that student's own releases, hand-ins and feedback --
    may list                                               nobody else's

Two implementations: :class:`gradekit.exchange.filesystem.course.FilesystemExchange` (nbgrader's
exchange folders with gradekit's modes: a hand-in counts for the Unix account that owns its
folder) and :class:`gradekit.exchange.hub.course.HubExchange` (a JupyterHub service that knows students
by their hub login, for hubs where every student's server is the same account).
``gradekit.exchange.exchanges.exchange_of`` picks the course's (``c.Gradekit.exchange``). Whatever reads a
hand-in past this interface -- the ledger, the policies, the grading session -- is the same for both, and
never reads a reference's key: only the exchange that made it does.
"""

from __future__ import annotations

import abc
import queue
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

    from gradekit.course import Course
    from gradekit.exchange.handin import Handin


class Events(Protocol):
    """Names of hand-ins that appeared or changed on ``names`` (None: look at everything)."""

    names: queue.Queue[str | None]  # the exchange's hints: a folder's name, a hand-in's number

    def start(self) -> None: ...

    def stop(self) -> None: ...


@dataclass(frozen=True)
class Listed:
    """One assignment as one student may list it."""

    assignment: str
    released: bool  # a release of it is there for this student
    handins: tuple[str, ...] = ()  # where their own hand-ins are (HandinRef.place), oldest first
    feedback: tuple[str, ...] = ()  # those of them with feedback to fetch


@dataclass
class Released:
    """What a publish did: per student, how their release is protected ("acl", "owner-only", "hub", ...)."""

    protection: dict[str, str] = field(default_factory=dict)


class CourseExchange(abc.ABC):
    """What a course needs from an exchange (see the module's docstring)."""

    kind: str = ""
    label: str = ""  # what the exchange is called in a message ("the nbgrader exchange")

    def __init__(self, course: Course):
        self.course = course

    # -- releases out ---------------------------------------------------------------------------
    @abc.abstractmethod
    def publish(self, assignment: str, force: bool = False, student: str | None = None) -> Released:
        """Hand each student (or only ``student``) their own release of ``assignment``
        (release/<student>/<assignment>/), readable by them alone. Without ``force``, an
        assignment already out is an ExchangeFailure."""

    @abc.abstractmethod
    def released(self) -> list[str]:
        """The assignments released through this exchange."""

    # -- hand-ins in ----------------------------------------------------------------------------
    @abc.abstractmethod
    def ready(self, wait: float = 0.0) -> str | None:
        """Why hand-ins cannot be taken in (one line), or None; a problem that may pass (a service
        still starting) is looked at again for up to ``wait`` seconds."""

    @abc.abstractmethod
    def where(self, poll: float = 0.0) -> str:
        """Where and how hand-ins are taken in, for the service's first line ("watching ...")."""

    @abc.abstractmethod
    def events(self, poll: float = 0.0) -> Events:
        """Hints that hand-ins arrived: a hint is never the only way one is found (a full look
        every so often catches anything a hint missed)."""

    @abc.abstractmethod
    def look(self, names: list[str] | None, assignments: list[str]) -> list[Handin]:
        """The hand-ins of ``assignments`` among those the hints ``names`` name (None: all of them),
        oldest first, each read and judged. One that is still arriving is left for a later look (an
        empty ``names`` takes those up)."""

    # -- feedback back --------------------------------------------------------------------------
    @abc.abstractmethod
    def give_feedback(self, student: str, assignment: str, submission: Path, pages: dict[str, str]) -> bool:
        """Release ``pages`` (notebook id -> the feedback page's HTML, the student's copy, as the
        delivery made it) of the hand-in collected in ``submission`` to ``student`` alone; False when
        the exchange cannot tell which of the student's hand-ins they are for (nothing is released)."""

    @abc.abstractmethod
    def feedback_given(self, assignment: str, submissions: Mapping[str, Path]) -> set[str]:
        """The students (of ``submissions``: student -> the folder their hand-in was collected in) whose
        pages of that hand-in were given back already; one look, whatever the class's size."""

    # -- what a student may list ----------------------------------------------------------------
    @abc.abstractmethod
    def listing(self, student: str) -> list[Listed]:
        """What ``student`` may list: their own releases, hand-ins and feedback."""

    def close(self) -> None:  # noqa: B027 - optional: an exchange with nothing open keeps it
        """Let go of what the exchange holds open (connections)."""
