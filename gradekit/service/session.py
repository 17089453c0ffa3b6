"""One grading session: what ``gradekit autograde`` and ``gradekit serve`` both grade on.

A session holds, for each of its assignments, a runner (its grading processes up, their
graders collected, their sandboxes warm) and the gradebook's recorder; it takes jobs and hands
back each one's result as it finishes, one job per (assignment, student) at a time::

    session.grade(assignment, job, done)     one submission; done(result) is called from pump()
    session.grade_class(assignment, ...)     a class: the unchanged ones reported as they are, the
                                             rest graded and recorded as each finishes -- at once
                                             (autograde) or as the caller pumps (serve's regrade)
    session.pump(timeout)                    hand finished results to their callbacks

:func:`autograde` is the ``autograde`` verb's library side: it checks what is asked, hands the
work to a running ``gradekit serve`` (its session is warm) when there is one, and otherwise
opens a session of its own, sized to the class. A course failure met anywhere stops the run.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course
    from gradekit.grading.options import Options
    from gradekit.results import SubmissionResult
    from gradekit.runners.base import Job

WARM = 1_000  # a live service's runner is sized as for a large class: one worker per core

Key = tuple[str, str]  # (assignment, student)


@dataclass
class ClassBatch:
    """A class being graded in a session: who is still to go, who is in flight."""

    assignment: str
    todo: list[str]
    on_result: Callable[[SubmissionResult], None]
    on_done: Callable[[], None] = lambda: None
    record: bool = True  # into the gradebook (gradekit check's simulated class is not recorded)
    in_flight: set[str] = field(default_factory=set)

    @property
    def finished(self) -> bool:
        return not self.todo and not self.in_flight


class GradingSession:
    """Runners and recorders of one course's assignments (see the module's docstring)."""

    def __init__(self, course: Course, assignments: list[str], options: Options, size: int = WARM):
        self.course, self.assignments, self.options, self.size = course, list(assignments), options, size
        self.runners: dict = {}
        self.recorders: dict = {}
        self.callbacks: dict[Key, Callable[[SubmissionResult], None]] = {}
        self.batches: list[ClassBatch] = []
        # what the course's code warned as it graded (gradekit.grading.harness.warned): line -> gradings
        self.warned: Counter[str] = Counter()

    # -- start and stop ---------------------------------------------------------------------------
    def start(self) -> None:
        """Every assignment's runner up and warm, and its recorder open: what a live service does
        before the first hand-in arrives."""
        from gradekit.runners.batch import require_sandbox

        require_sandbox(self.options)
        for assignment in self.assignments:
            self.course.source_of(assignment)
            self._open(assignment, self.size).warm()

    def _open(self, assignment: str, size: int):
        """The assignment's runner, started now if it is not yet (sized for ``size`` submissions)."""
        from gradekit.runners.batch import make_runner, require_sandbox
        from gradekit.timeline import mark

        if assignment not in self.runners:
            require_sandbox(self.options)
            runner = make_runner(self.course, assignment, self.options, size)
            self.runners[assignment] = runner
            runner.start()  # a pool's fork server loads the assignment while this process goes on
            mark("coordinator", "runner started")
            self.recorder(assignment).warm()
        return self.runners[assignment]

    def recorder(self, assignment: str):
        from gradekit.gradebook.write import Recorder

        if assignment not in self.recorders:
            self.recorders[assignment] = Recorder(self.course, assignment)
        return self.recorders[assignment]

    def close(self) -> None:
        try:
            for runner in self.runners.values():
                runner.close()
        finally:
            for recorder in self.recorders.values():
                recorder.close()
            self.runners, self.recorders = {}, {}

    def __enter__(self) -> GradingSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- one submission ---------------------------------------------------------------------------
    def busy(self, key: Key) -> bool:
        return key in self.callbacks

    def grade(self, assignment: str, job: Job, done: Callable[[SubmissionResult], None]) -> None:
        """Hand ``job`` to the assignment's runner; ``done(result)`` is called by :meth:`pump`."""
        key = (assignment, job.student)
        assert key not in self.callbacks, f"{key} is already being graded"
        self.callbacks[key] = done
        self._open(assignment, self.size).submit(job)

    def record(self, result: SubmissionResult) -> SubmissionResult:
        """Write ``result`` to the gradebook (a grading recorded twice writes nothing new); what the
        gradebook holds of it: ``result`` with its late penalties."""
        return self.recorder(result.assignment).record(result)

    def pump(self, timeout: float | None = 0) -> int:
        """Hand every finished result to its callback (waiting up to ``timeout`` for a first one,
        None: until one finishes) and feed the classes being graded; how many finished."""
        self._feed()
        finished = 0
        for runner in list(self.runners.values()):
            wait = timeout if len(self.runners) == 1 else 0
            while (outcome := runner.next_outcome(timeout=wait)) is not None:
                wait = 0
                finished += 1
                self.warned.update(outcome.warned)
                self.callbacks.pop((outcome.result.assignment, outcome.job.student))(outcome.result)
        if finished:
            self._feed()
        return finished

    @property
    def pending(self) -> int:
        return len(self.callbacks)

    # -- a class ----------------------------------------------------------------------------------
    def unchanged(self, assignment: str, students: list[str], force: bool) -> tuple[list[str], list]:
        """(the students whose submission needs grading, the stored results of the others: their
        submission, graders and variant unchanged since their last grading)."""
        from gradekit.grading.incremental import unchanged
        from gradekit.timeline import mark

        done = {} if force else unchanged(self.course, assignment, students)
        for result in done.values():
            result.unchanged = True  # for the progress line only; not a field
        mark("coordinator", "unchanged checked")
        return [s for s in students if s not in done], [done[s] for s in students if s in done]

    def grade_class(
        self,
        assignment: str,
        students: list[str],
        on_result: Callable[[SubmissionResult], None],
        on_done: Callable[[], None] = lambda: None,
        wait: bool = True,
        record: bool = True,
    ) -> ClassBatch:
        """Grade ``students``' submissions in submitted/, recording each result and calling
        ``on_result`` with it as it finishes, one job per student at a time and no more in flight
        than keep the runner busy. ``wait``: return when all are done; else the caller's
        :meth:`pump` moves the class on, and ``on_done`` is called at its end. ``record``: False
        leaves the gradebook alone."""
        batch = ClassBatch(assignment, list(students), on_result, on_done, record)
        if batch.todo:
            self._open(assignment, len(batch.todo) if not self.runners else self.size)
        self.batches.append(batch)
        self._feed()
        while wait and not batch.finished:
            self.pump(timeout=None)
        return batch

    def _feed(self) -> None:
        from gradekit.runners.base import Job

        for batch in list(self.batches):
            runner = self.runners.get(batch.assignment)
            while batch.todo and runner is not None and runner.pending < max(runner.window, 1):
                student = batch.todo[0]
                if self.busy((batch.assignment, student)):
                    break  # the student's hand-in is being graded: their regrade waits for it
                batch.todo.pop(0)
                batch.in_flight.add(student)
                self.grade(batch.assignment, Job(student), functools.partial(self._batch_result, batch))
            if batch.finished:
                self._end(batch)

    def _batch_result(self, batch: ClassBatch, result: SubmissionResult) -> None:
        batch.in_flight.discard(result.student)
        if batch.record:
            result = self.record(result)
        batch.on_result(result)
        if batch.finished:
            self._end(batch)

    def _end(self, batch: ClassBatch) -> None:
        if batch in self.batches:
            self.batches.remove(batch)
            batch.on_done()


# -- the autograde verb's library side --------------------------------------------------------------


def class_to_grade(course: Course, assignment: str, students: list[str] | None) -> tuple[list[str], list[str]]:
    """The students to grade (``students``, each in the gradebook and with a submission; default:
    everyone with a submission) and a line for each folder of submitted/ left out."""
    from gradekit.errors import StudentError, UsageError
    from gradekit.gradebook import read
    from gradekit.untrusted import submitted_students

    course.source_of(assignment)
    read.require_registered(course, assignment)
    if students:
        read.require_students(course, students)
        for student in students:
            if not course.submitted_dir(student, assignment).is_dir():
                raise StudentError(
                    f"no submission for {student}: {course.submitted_dir(student, assignment)} does not exist"
                )
        return list(students), []
    students, skipped = submitted_students(course.root / "submitted", assignment, set(read.students(course)))
    if not students:
        raise UsageError(f"nothing to grade: no submissions in submitted/*/{assignment}/")
    return students, skipped


def autograde(
    course: Course,
    assignment: str,
    students: list[str],
    options: Options,
    on_result: Callable[[SubmissionResult], None],
    warned: Counter[str] | None = None,
) -> bool:
    """Grade ``students`` and record every result, calling ``on_result`` for each as it comes;
    True when a running ``gradekit serve`` graded them (on its warm session), False when a session
    of this process did. A course failure stops the run: its message says how many were recorded.
    ``warned`` gains what the course's code warned in this session's gradings (each warning, and
    in how many)."""
    from gradekit.errors import CourseFailure
    from gradekit.runners.batch import require_sandbox
    from gradekit.service import control
    from gradekit.timeline import mark

    require_sandbox(options)
    service = control.connect(course)
    if service is not None:  # a `gradekit serve` runs: its warm session grades, and it records
        _through(service, assignment, students, options, on_result)
        return True
    recorded = 0

    def counted(result: SubmissionResult) -> None:
        nonlocal recorded
        mark("coordinator", "result")
        recorded += 1
        on_result(result)

    with course.lock("autograde"), GradingSession(course, [assignment], options) as session:
        todo, done = session.unchanged(assignment, students, options.force)
        for result in done:
            counted(session.record(result))
        try:
            session.grade_class(assignment, todo, counted)
        except CourseFailure as exc:
            raise type(exc)(
                f"{exc} -- the run stopped; {recorded} submission(s) recorded before it, none after"
            ) from None
        finally:
            if warned is not None:
                warned.update(session.warned)
    mark("coordinator", "gradebook closed")
    return False


def _through(service, assignment: str, students: list[str], options, on_result) -> None:
    """Hand the grading to the running service and pass on what it streams back."""
    from gradekit.errors import CourseFailure, GradekitError
    from gradekit.results import SubmissionResult
    from gradekit.service import control

    with service:
        for answer in control.request(
            service, {"op": "autograde", "assignment": assignment, "students": students, "force": options.force}
        ):
            if "error" in answer:
                kind = CourseFailure if answer.get("exit") == 3 else GradekitError
                raise kind(f"the running service: {answer['error']}")
            if "result" in answer:
                result = SubmissionResult.from_dict(answer["result"])
                result.unchanged = bool(answer.get("unchanged"))
                on_result(result)
