"""The sender's loop: launches in, reconcile, send -- woken by the writers, by its scan, at due dates.

    woken       a writer's poke (gradekit.changes): reconcile and send at once
    scan        every ``scan`` seconds anyway (what no poke told: a due date set, a settings file)
    due dates   at each assignment's due date: FullyGraded, and the parts hidden until then
    retries     the outbox's own times (gradekit.lti.sender's backoff)

One loop per course (the ``lti-send`` lock): a second ``gradekit lti serve`` refuses in one line.
"""

from __future__ import annotations

import datetime as dt
import select
import sys
import threading
import time

from gradekit import changes
from gradekit.lti import launches, reconcile, sender, store

SCAN = 30.0  # seconds between scans when nothing wakes the loop


class Loop:
    def __init__(
        self,
        course,
        platform,
        assignments: list[str],
        scan: float = SCAN,
        backoff: sender.Backoff = sender.Backoff(),
        out=None,
    ):
        from gradekit.lti.services import Connector

        self.course, self.platform, self.assignments = course, platform, assignments
        self.scan, self.backoff = scan, backoff
        self.out = out or sys.stdout
        self.connector = Connector(course, platform)
        self.stop = threading.Event()
        self.sent = 0

    def say(self, line: str) -> None:
        print(f"{dt.datetime.now():%H:%M:%S} {line}", file=self.out, flush=True)

    def run(self) -> None:
        wake = changes.listen(self.course)
        try:
            last_scan = 0.0
            next_due: dt.datetime | None = None
            failing = 0
            while not self.stop.is_set():
                try:
                    last_scan, next_due = self._turn(wake, last_scan, next_due)
                    failing = 0
                    wait = self._wait(last_scan, next_due)
                except Exception as exc:  # noqa: BLE001 - a course or database that fails now: said, tried again
                    failing += 1
                    wait = min(self.scan, 2.0 ** min(failing, 5))
                    first = str(exc).splitlines()[0][:200] if str(exc) else ""
                    self.say(f"LTI: {type(exc).__name__}: {first}; trying again in {wait:.0f} s (nothing is lost)")
                    last_scan = 0.0  # a full look next time
                select.select([wake], [], [], wait)
        finally:
            wake.close()
            changes.path_of(self.course).unlink(missing_ok=True)

    def _turn(self, wake, last_scan: float, next_due: dt.datetime | None) -> tuple[float, dt.datetime | None]:
        """One turn: launches in and reconcile when woken, at a due date or at the scan's time; then send."""
        now = time.time()
        due_now = next_due is not None and dt.datetime.now(dt.UTC).replace(tzinfo=None) >= next_due
        woken = self._drain(wake)
        if woken or due_now or now - last_scan >= self.scan:
            last_scan = now
            launches.ingest(self.course)
            done = reconcile.reconcile(self.course, self.assignments)
            next_due = done.next_due
            if done.queued:
                self.say(f"LTI: {done.queued} score(s) to send")
        result = sender.send_due(self.course, self.connector, self.backoff)
        self.sent += result.sent
        if result.sent:
            self.say(f"LTI: {result.sent} score(s) sent")
        for line in result.lines:
            self.say(line)
        return last_scan, next_due

    def _drain(self, wake) -> bool:
        woken = False
        while True:
            ready, _, _ = select.select([wake], [], [], 0)
            if not ready:
                return woken
            wake.recv(64)
            woken = True

    def _wait(self, last_scan: float, next_due: dt.datetime | None) -> float:
        """Seconds until the next thing to do: the scan, a due date, the first pending row's time."""
        from sqlalchemy import func
        from sqlalchemy import select as sql_select

        until = last_scan + self.scan - time.time()
        if next_due is not None:
            until = min(until, (next_due - dt.datetime.now(dt.UTC).replace(tzinfo=None)).total_seconds())
        with store.engine(self.course).connect() as conn:
            first = conn.execute(
                sql_select(func.min(store.outbox.c.next_at)).where(store.outbox.c.state == "pending")
            ).scalar_one_or_none()
        if first is not None:
            until = min(until, first - time.time())
        return max(0.05, min(until, self.scan))
