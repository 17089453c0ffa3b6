"""``gradekit serve``: every hand-in graded and its feedback released seconds after Submit.

For each hand-in the course's exchange takes in (gradekit.exchange.base: an event, or a full look):

    1. who and when   the hand-in as the exchange read and judged it (the filesystem exchange: the
                      account that owns its folder, the time it arrived; the hub exchange: the hub
                      login whose token handed it in, the service's clock), recorded in the ledger at
                      first sight (its hand-in number, its receipt), or refused;
    2. the policy     a student's attempts, the time between them, which counts (service.policy,
                      read again when it changes: service.policies); one queue per student, served
                      in turn (service.queues);
    3. grading        the hand-in, kept as its attempt, graded in the grading session
                      (service.session), whose runners stay warm between submissions;
    4. recording      the attempt that counts installed as submitted/ and autograded/ and written to
                      the gradebook;
    5. feedback       this attempt's page, as the policy shows it before the due date, given back
                      through the exchange, where the student's Fetch Feedback finds it.

One line per event on stdout. What the ledger holds makes it safe to kill:
on a restart, every hand-in not yet settled is graded (once -- its hand-in
number was fixed at first sight, and a grading recorded twice writes nothing
new), and whatever arrived meanwhile is found by the first full look. A course
failure stops the service: one line, exit 3, nothing more recorded.
``gradekit autograde`` while it serves hands its class to the service
(service.regrades), which grades it on the same warm session.
"""

from __future__ import annotations

import datetime as dt
import functools
import queue
import signal
import sys
import time
from pathlib import Path

from gradekit.course import Course
from gradekit.errors import CourseFailure
from gradekit.exchange.base import CourseExchange
from gradekit.exchange.exchanges import exchange_of
from gradekit.grading.options import Options
from gradekit.service import attempts
from gradekit.service.policies import Policies
from gradekit.service.policy import Policy
from gradekit.service.queues import Queues, Waiting
from gradekit.service.regrades import Regrades
from gradekit.service.session import GradingSession

BACKOFF = (0.25, 2.0)  # seconds between looks at an exchange not ready yet: the first, and at most


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Service:
    """The live grader of one course (see the module's docstring)."""

    def __init__(
        self,
        course: Course,
        assignments: list[str],
        options: Options = Options(),
        poll: float = 0.0,
        out=None,
        exchange: CourseExchange | None = None,
    ):
        self.course, self.assignments, self.options, self.poll = course, assignments, options, poll
        self.out = out or sys.stdout
        self.policies = Policies(course, assignments, self.say)
        self.exchange = exchange or exchange_of(course)
        self.session = GradingSession(course, assignments, options)
        self.queues = Queues(newest_only=self.policies.throttled)
        self.regrades = Regrades(
            course, assignments, self.session, self.exchange, self.policy, self.policies.due, self.say
        )
        self.graded = 0

    def policy(self, assignment: str) -> Policy:
        """``assignment``'s policy as it stands now (gradekit.service.policies: its settings read
        again when they changed); a change applies from the next hand-in on."""
        policy = self.policies.of(assignment)
        self.queues.newest_only = self.policies.throttled
        return policy

    # -- the command --------------------------------------------------------------------------
    def run(self) -> int:
        # a plain flag: a handler that took a lock (Event.set) could interrupt the main thread holding it
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        from gradekit.web.lifetime import TAKEOVER, Hub

        hub = Hub()  # started by a hub: stop when it dies (even while starting); wait for a dead hub's service
        hub.watch(self._on_hub_gone)
        if not self._wait_for_exchange():
            self.say("stopped before the exchange was ready: 0 hand-in(s) graded")
            return 0
        wait = TAKEOVER if hub.started_by_hub else 0.0
        with self.course.lock("serve", wait), self.course.lock("autograde", wait):
            self._start()
            try:
                while not self._stopping:
                    self._step()
                if self._hub_gone:
                    self.say("stopping: the hub that started this service has died")
            finally:
                self._close()
        self.say(f"stopped: {self.graded} hand-in(s) graded")
        return 0

    _stopping = False
    _hub_gone = False

    def _wait_for_exchange(self) -> bool:
        """Wait, as long as it takes, for the exchange to take hand-ins in: a hub's proxy without the
        exchange's route yet (404), an exchange starting or started again (502, 503, refused), a release
        not made yet. One line when it waits (and each time the reason changes), one when it is ready;
        False if the service was stopped meanwhile."""
        started, said, pause = time.monotonic(), "", BACKOFF[0]
        while not self._stopping:
            problem = self.exchange.ready()
            if problem is None:
                if said:
                    self.say(f"the exchange is ready, after {time.monotonic() - started:.1f} s")
                return True
            if problem != said:
                self.say(f"waiting: {problem} (looking again every {BACKOFF[1]:g} s at most)")
                said = problem
            deadline = time.monotonic() + pause
            while not self._stopping and time.monotonic() < deadline:
                time.sleep(0.05)
            pause = min(pause * 2, BACKOFF[1])
        return False

    def _on_signal(self, signum, frame) -> None:
        self._stopping = True

    def _on_hub_gone(self) -> None:
        self._hub_gone = self._stopping = True

    def say(self, line: str) -> None:
        print(f"{_now():%H:%M:%S} {line}", file=self.out, flush=True)

    # -- start and stop -------------------------------------------------------------------------
    def _start(self) -> None:
        from gradekit.exchange.ledger import Ledger
        from gradekit.runners.batch import require_sandbox

        require_sandbox(self.options)
        import gradekit.pages.feedback  # noqa: F401 - imported now, not at the first hand-in
        from gradekit.pages import look

        look.environment().get_template("feedback.html")
        self.ledger = Ledger(self.course)
        self.session.start()
        self.events = self.exchange.events(self.poll)
        self.events.start()
        self.regrades.open()
        for entry in self.ledger.unsettled(self.assignments):  # a restart: what was not graded yet
            self._queue(entry, resumed=True)
        self.say(f"serving {', '.join(self.assignments)} of {self.course.course_id}: {self.exchange.where(self.poll)}")
        for assignment in (a for a in self.assignments if self.policies.due(a) is None):  # an oracle for its values
            self.say(
                f"{assignment} has no due date: nothing is hidden, every attempt's page says at once whether each "
                f'answer is right; set one: nbgrader db assignment add {assignment} --duedate="YYYY-MM-DD HH:MM UTC"'
            )

    def _close(self) -> None:
        self.events.stop()
        try:
            self.session.close()
        finally:
            self.exchange.close()
            self.ledger.close()
            self.regrades.close()

    # -- the loop ---------------------------------------------------------------------------------
    def _step(self) -> None:
        for handin in self.exchange.look(self._events(timeout=0.02), self.assignments):
            self._receive(handin)
        self._dispatch()
        self.regrades.step()
        self.session.pump(0)

    def _events(self, timeout: float) -> list[str] | None:
        """The names the exchange's events gave since the last step; None: look at everything."""
        try:
            first = self.events.names.get(timeout=timeout)
        except queue.Empty:
            return []
        pending = [first]
        while True:
            try:
                pending.append(self.events.names.get_nowait())
            except queue.Empty:
                break
        if None in pending:  # a full look
            return None
        return list(dict.fromkeys(n for n in pending if n is not None))

    def _receive(self, handin) -> None:
        """A hand-in the exchange took in: recorded at first sight, queued if accepted."""
        entry = self.ledger.see(handin)
        if entry.new or entry.changed:
            for line in self.ledger.report(entry):
                self.say(line)
        if entry.new and entry.accepted:
            self.say(f"received {entry.student} {entry.assignment} (hand-in {entry.number}, {entry.receipt})")
            self._queue(entry)

    def _queue(self, entry, resumed: bool = False) -> None:
        policy = self.policy(entry.assignment)
        graded = self.ledger.graded_attempts(entry.assignment, entry.student)
        if not policy.may_grade(len(graded)):
            self.ledger.settle(entry, "over the limit")
            self.say(
                f"not graded: {entry.student} {entry.assignment} hand-in {entry.number}: all "
                f"{policy.attempts} attempts used"
            )
            return
        last = dt.datetime.fromisoformat(graded[-1].graded) if graded and graded[-1].graded else None
        now = _now()
        wait = policy.wait(last, now)
        superseded = self.queues.put(
            Waiting((entry.assignment, entry.student), entry, now + dt.timedelta(seconds=wait))
        )
        for older in superseded:
            self.ledger.settle(older, "superseded")
            self.say(
                f"superseded: {older.student} {older.assignment} hand-in {older.number}, by hand-in "
                f"{entry.number} (one graded at most every {policy.min_interval:g} s)"
            )
        if resumed:
            self.say(f"resumed {entry.student} {entry.assignment} hand-in {entry.number}")

    def _dispatch(self) -> None:
        from gradekit.runners.base import Job

        for waiting in self.queues.ready(_now(), skip=self.session.callbacks):
            entry = waiting.entry
            assert entry.student is not None  # an accepted hand-in counts for a student
            base = attempts.stage(self.course, entry, self.ledger.kept(entry))
            job = Job(entry.student, folder=str(base / "submitted"), out_dir=str(base / "autograded"))
            self.session.grade(entry.assignment, job, functools.partial(self._finish, entry, base, waiting.key))

    # -- an outcome -------------------------------------------------------------------------------
    def _finish(self, entry, base: Path, key, result) -> None:
        try:
            self._settle_attempt(entry, base, result)
        finally:
            self.queues.done(key)

    def _settle_attempt(self, entry, base: Path, result) -> None:
        """A graded hand-in: the attempt that counts installed and recorded, this attempt's page given
        back (gradekit.service.delivery), the ledger told, one line. ``graded`` pairs each graded
        hand-in's number with its score; the line names the graded attempt (its k) and the hand-in."""
        from gradekit.pages.look import points
        from gradekit.results import RESULTS_FILE, load
        from gradekit.service.delivery import Attempts, deliver

        assignment, student = entry.assignment, entry.student
        policy = self.policy(assignment)
        graded = [(e.number or 0, e.score or 0.0) for e in self.ledger.graded_attempts(assignment, student)]
        graded.append((entry.number or 0, result.score))
        counting = policy.counting(graded)
        attempts.install(self.course, assignment, student, counting)
        counted = (
            result
            if counting == entry.number
            else load(attempts.folder(self.course, assignment, student, counting) / "autograded" / RESULTS_FILE)
        )
        recorded = self.session.record(counted) if counted is not None else None
        page = recorded if counting == entry.number and recorded is not None else result  # with its late penalty
        these = Attempts(len(graded), counting, tuple(graded))
        done = deliver(
            self.course,
            self.exchange,
            page,
            base / "submitted",
            attempts=these,
            policy=policy,
            due=self.policies.due(assignment),
            keep=base / "feedback",
        )
        self.ledger.settle(entry, "graded", result.score)
        self.graded += 1
        arrived = dt.datetime.fromisoformat(entry.arrived) if entry.arrived else None
        latency = f", {(_now() - arrived).total_seconds():.2f} s after it arrived" if arrived else ""
        best = next(score for number, score in graded if number == counting)
        counts = (
            f"attempt {these.counting_attempt} counts: {points(best)}/{points(result.possible)}"
            if counting != entry.number
            else "it counts"
        )
        shown = done.shown
        held = (
            f"; the page shows {points(shown.shown)}/{points(shown.possible)} until the due date, "
            f"{shown.held_text()} hidden"
            if shown is not None and shown.held
            else ""
        )
        score = (
            f"{points(page.final)}/{points(page.possible)}"
            if shown is None
            else (f"{points(shown.score)}/{points(shown.possible)}")
        )
        self.say(
            f"graded {student} {assignment} attempt {these.attempt}: {score} ({counts}), hand-in {entry.number}"
            f"{'' if not done.problem else ', feedback not released: ' + done.problem}{latency}{held}"
        )


def serve(course: Course, assignments: list[str], options: Options, poll: float = 0.0) -> int:
    """``gradekit serve``: run until SIGTERM or SIGINT; a course failure is one line and exit 3."""
    service = Service(course, assignments, options, poll)
    try:
        return service.run()
    except CourseFailure as exc:
        service.say(f"stopped: {exc}")
        raise
