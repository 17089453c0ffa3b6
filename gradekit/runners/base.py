"""The runner interface: submit one submission, take the results as they finish.

    Job        one submission to grade: the student, and what ``gradekit check`` changes (another
               folder on the student's variant, another output folder, a language, tags)
    Outcome    a job's result, and what watching stages observed (never part of the result)
    Runner     ``submit(job)``, ``next_outcome(timeout)``, ``pending``, ``close()``; ``run(jobs, on_outcome)``
               for a batch, with a bounded number in flight

A runner keeps what it started -- grading processes with their graders
collected, warm sandboxes -- from one submission to the next until it is
closed: ``autograde`` submits a class and closes it, ``gradekit check`` its
simulated class, ``gradekit serve`` each submission as it arrives. Every
runner builds a :class:`~gradekit.grading.pipeline.Pipeline` per grading
process; results come back to the coordinating process (which alone writes
the gradebook), and a :class:`~gradekit.errors.CourseFailure` seen anywhere is
raised by ``next_outcome``: a grading process reports it instead of a result.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from gradekit.course import Course
from gradekit.errors import CourseFailure
from gradekit.grading.options import Options
from gradekit.results import SubmissionResult


@dataclass(frozen=True)
class Job:
    """One submission to grade: ``student``'s, from submitted/ unless ``folder`` says otherwise."""

    student: str
    folder: str | None = None  # another submission, graded on the student's variant (gradekit check)
    out_dir: str | None = None  # where its graded notebooks and results.json go (default autograded/)
    language: str | None = None  # default: the student's (languages.csv)
    tags: tuple[str, ...] = ()  # for stages that watch the grading ("audit")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Job:
        return cls(**{**data, "tags": tuple(data.get("tags") or ())})


@dataclass
class Outcome:
    job: Job
    result: SubmissionResult
    observed: dict = field(default_factory=dict)  # by notebook: what watching stages saw (gradekit check)

    @property
    def warned(self) -> list[str]:
        """What the course's code warned in this grading, each once, in the order raised
        (gradekit.grading.harness.warned)."""
        lines = (w for seen in self.observed.values() for w in seen.get("grader_warnings", []))
        return list(dict.fromkeys(lines))


class Runner(abc.ABC):
    """Grades submissions of one assignment somewhere, one at a time or many at once."""

    window = 1  # how many jobs in flight keep it busy; run() keeps no more than that submitted

    def __init__(self, course: Course, assignment: str, options: Options):
        self.course, self.assignment, self.options = course, assignment, options

    def start(self) -> None:  # noqa: B027 - optional: a runner with nothing to start keeps it
        """Begin what takes time before the first submission (optional; submit() does it too)."""

    def warm(self) -> None:  # noqa: B027 - optional: by default a runner warms up at its first submission
        """Have everything up that a first submission would wait for (a live service calls it at start)."""

    @abc.abstractmethod
    def submit(self, job: Job) -> None:
        """Hand one submission over; its outcome comes from :meth:`next_outcome`."""

    @abc.abstractmethod
    def next_outcome(self, timeout: float | None = None) -> Outcome | None:
        """The next finished submission; None when nothing is pending, or none finished within
        ``timeout`` seconds. Raises the CourseFailure a grading process met."""

    @property
    @abc.abstractmethod
    def pending(self) -> int:
        """Submitted and not yet taken by next_outcome."""

    def close(self) -> None:  # noqa: B027 - optional: a runner with nothing to end keeps it
        """End what the runner started (grading processes, sandboxes)."""

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, jobs: Iterable[Job], on_outcome: Callable[[Outcome], None]) -> None:
        """Grade every job, calling ``on_outcome`` for each as it finishes, with at most
        :attr:`window` in flight (so the coordinator's memory stays flat however many)."""
        pending = iter(jobs)
        more = True
        while True:
            while more and self.pending < self.window:
                job = next(pending, None)
                if job is None:
                    more = False
                    break
                self.submit(job)
            if not self.pending:
                return
            outcome = self.next_outcome()
            if outcome is not None:
                on_outcome(outcome)


# -- the wire format between a grading process and the coordinator -----------------------------


def settle_heap() -> None:
    """Move what a grading process holds before its first submission (the grading code, its libraries,
    the prepared pipeline) out of the garbage collector's reach: a full collection then walks only what
    the submissions since made, a few milliseconds instead of a tenth of a second or more landing in
    whatever is graded at that moment (and forked workers keep sharing those pages). Collected first,
    so that no garbage is kept for ever."""
    import gc

    gc.collect()
    gc.freeze()


def grade_job(pipeline, job: Job) -> dict:
    """Grade ``job`` with ``pipeline`` in a grading process and say how it went as plain data:
    the result and what was observed, or the course failure."""
    from pathlib import Path

    observed: dict = {}
    try:
        result = pipeline.grade_or_zero(
            job.student,
            Path(job.folder) if job.folder else None,
            Path(job.out_dir) if job.out_dir else None,
            job.language,
            frozenset(job.tags),
            observed,
        )
    except CourseFailure as exc:
        return failure_outcome(exc)
    return {"result": result.to_dict(), "observed": observed}


def failure_outcome(exc: CourseFailure) -> dict:
    return {"course_failure": {"type": type(exc).__name__, "message": str(exc)}}


def outcome_of(job: Job, data: dict) -> Outcome:
    """The outcome a grading process sent, or the CourseFailure it reported, raised here."""
    failure = data.get("course_failure")
    if failure:
        from gradekit import errors

        kind = getattr(errors, str(failure.get("type")), None)
        if not (isinstance(kind, type) and issubclass(kind, CourseFailure)):
            kind = CourseFailure
        raise kind(str(failure.get("message")))
    return Outcome(job, SubmissionResult.from_dict(data["result"]), data.get("observed") or {})


def zero(job: Job, assignment: str, reason: str) -> Outcome:
    """A job that could not be graded at all: its zero, with the reason."""
    return Outcome(job, SubmissionResult(job.student, assignment, error=reason).seal())
