"""``gradekit autograde`` through a running service: the control socket's service side.

The service listens on the course's socket (gradekit.service.control: the protocol, and the
client's side); each request is a class to grade again on the service's warm session. Its results
go back to the client as they come, each is recorded by the session, and each regraded student's
pages are given back again in place of the ones the first grading gave (gradekit.service.delivery),
with the gradebook's final marks.
"""

from __future__ import annotations

import datetime as dt
import os
import queue
import socket
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from gradekit.errors import UsageError
from gradekit.service import control

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course
    from gradekit.exchange.base import CourseExchange
    from gradekit.results import SubmissionResult
    from gradekit.service.policy import Policy
    from gradekit.service.session import GradingSession


class Regrades:
    """The requests a running service takes on its socket (see the module's docstring): ``open`` binds
    it, ``step`` serves what came since the last step (from the service's loop), ``close`` unbinds it."""

    def __init__(
        self,
        course: Course,
        assignments: list[str],
        session: GradingSession,
        exchange: CourseExchange,
        policy: Callable[[str], Policy],
        due: Callable[[str], dt.datetime | None],
        say: Callable[[str], None],
    ):
        self.course, self.assignments, self.session, self.exchange = course, assignments, session, exchange
        self.policy, self.due, self.say = policy, due, say
        self.requests: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._listener: socket.socket | None = None

    def open(self) -> None:
        path = control.path_of(self.course)
        path.unlink(missing_ok=True)
        self._path = path
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        os.chmod(path, 0o600)
        listener.listen(8)
        self._listener = listener
        threading.Thread(target=self._accept, name="gradekit-serve-control", daemon=True).start()

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            message = control.read_request(conn)
            if message is None:
                conn.close()
                continue
            self.requests.put((message, conn))

    def close(self) -> None:
        self._stop.set()
        if self._listener is not None:
            self._listener.close()
            self._path.unlink(missing_ok=True)

    def step(self) -> None:
        """Start grading each class asked for since the last step (the session's pump moves them on)."""
        while True:
            try:
                message, conn = self.requests.get_nowait()
            except queue.Empty:
                return
            try:
                assignment, students, force = self._batch(message)
            except UsageError as exc:
                control.send(conn, {"error": str(exc), "exit": exc.exit_code})
                conn.close()
                continue
            todo, unchanged = self.session.unchanged(assignment, students, force)
            control.send(conn, {"start": len(todo), "unchanged": len(unchanged)})
            for result in unchanged:
                control.send(conn, {"result": result.to_dict(), "unchanged": True})

            marks: list = []  # the class's marks, read once a regrade (a regrade changes none of them)

            def on_result(result, conn=conn, marks=marks) -> None:
                control.send(conn, {"result": result.to_dict()})
                self.say(f"regraded {result.student} {result.assignment}: {result.score:g}/{result.possible:g}")
                self._give_again(result, marks)

            def on_done(conn=conn) -> None:
                control.send(conn, {"done": True})
                conn.close()

            self.session.grade_class(assignment, todo, on_result, on_done, wait=False)

    def _batch(self, message: dict) -> tuple[str, list[str], bool]:
        from gradekit.gradebook import read
        from gradekit.untrusted import submitted_students

        assignment = str(message.get("assignment", ""))
        if message.get("op") != "autograde" or assignment not in self.assignments:
            raise UsageError(
                f"the service does not grade {assignment!r} (it serves {', '.join(self.assignments)}): "
                "stop it, or start it for that assignment too"
            )
        students = [str(s) for s in message.get("students") or []]
        if students:
            read.require_students(self.course, students)
        else:
            students, _skipped = submitted_students(
                self.course.root / "submitted", assignment, set(read.students(self.course))
            )
        return assignment, students, bool(message.get("force"))

    def _give_again(self, result: SubmissionResult, marks: list) -> None:
        """A regrade's pages, given back for the submission of record in place of the ones its grading
        gave, with the gradebook's final marks (``marks``: the regrade's ClassMarks, read at its first
        result)."""
        from gradekit.gradebook.marks import read_class_marks
        from gradekit.service.delivery import deliver

        student, assignment = result.student, result.assignment
        if not marks:
            marks.append(read_class_marks(self.course, assignment))  # plain SQL on SQLite
        done = deliver(
            self.course,
            self.exchange,
            marks[0].apply(result),
            self.course.submitted_dir(student, assignment),
            policy=self.policy(assignment),
            due=self.due(assignment),
        )
        self.say(
            f"feedback not given again: {done.problem}"
            if done.problem
            else f"gave {student} {assignment}'s feedback again"
        )
