"""``nbgrader collect``, judging each submission by who handed it in and when, not by its name.

Selected in nbgrader_config.py (``c.ExchangeFactory.collect``), it is what
``nbgrader collect`` and formgrader's Collect run. For every folder of inbound/
it reads what a student cannot forge (:mod:`gradekit.exchange.filesystem.inbound`: the account
that owns it, the time it really arrived, its files through descriptors that
follow no link) and records it in the ledger (:mod:`gradekit.exchange.ledger`: its
hand-in number and its signed receipt, or why it is refused). Then, as nbgrader
does, each student's latest accepted submission (``--before-duedate``: the
latest on time) is copied to submitted/<student>/<assignment>/ -- what the ledger
kept at its first sight, with ``timestamp.txt`` the time it counts at and
``receipt.json`` beside it, at 0750/0640.

A folder named for one student and handed in by another account is refused and
kept aside, never collected: the named student's own submission stays theirs.
Each refusal, backdated timestamp and change is one line of the log (and of
``autograde``'s and ``integrity``'s output, from the ledger).
"""

from __future__ import annotations

import os
from pathlib import Path

from nbgrader.exchange.default import ExchangeCollect
from nbgrader.utils import check_mode
from traitlets import Bool

from gradekit.exchange.filesystem import layout
from gradekit.exchange.filesystem.inbound import folder_of, read_inbound
from gradekit.exchange.identity import Identities
from gradekit.exchange.ledger import Entry, Ledger, report_lines


class GradekitCollect(ExchangeCollect):
    """nbgrader's collect on the owner and the arrival time (see the module's docstring)."""

    trust_names = Bool(
        False,
        help="Take the student from the submission's name, as nbgrader does: only for one account simulating a "
        "class (tests, a demo), never where students have accounts of their own (gradekit doctor says so)",
    ).tag(config=True)

    def ensure_root(self):
        problem = layout.root_problem(self.root)
        if problem:
            self.fail(problem)
        super().ensure_root()

    def init_src(self):
        from datetime import datetime

        from gradekit.course import Course

        cd = self.coursedir
        if cd.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, cd.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        course = Course.load(cd.root)
        wanted = cd.student_id if cd.student_id not in ("", "*") else None
        self.entries: dict[str, tuple[Entry, dict[str, bytes]]] = {}
        latest: dict[str, Entry] = {}
        with Ledger(course) as ledger:
            handins = read_inbound(
                Path(self.inbound_path), cd.assignment_id, Identities.of(course), trust_names=self.trust_names
            )
            for handin in handins:
                entry = ledger.see(handin)
                for line in report_lines(entry, ledger.tolerance) if entry.new or entry.changed else []:
                    (self.log.error if not entry.accepted else self.log.warning)("%s", line)
                if not entry.accepted or (wanted and entry.student != wanted) or entry.student is None:
                    continue
                mine = [e for e in ledger.entries(cd.assignment_id, entry.student) if e.accepted]
                latest[entry.student] = max(mine, key=lambda e: e.counted or "")
            for entry in ledger.gone(cd.assignment_id, {h.ref for h in handins}):
                for line in report_lines(entry, ledger.tolerance):
                    self.log.warning("%s", line)
            self.duedate = self._duedate()
            self.src_records = []
            for student, last in latest.items():
                accepted = [e for e in ledger.entries(cd.assignment_id, student) if e.accepted and e.counted]
                on_time = [
                    e
                    for e in accepted
                    if self.duedate is None or datetime.fromisoformat(e.counted or "") <= self.duedate
                ]
                chosen = max(on_time, key=lambda e: e.counted or "") if self.before_duedate and on_time else last
                name = folder_of(chosen.ref)[0]
                path = os.path.join(self.inbound_path, name)
                self.entries[path] = (chosen, ledger.kept(chosen))
                self.src_records.append(
                    {
                        "username": student,
                        "filename": name,
                        "timestamp": datetime.fromisoformat(chosen.counted or ""),
                    }
                )
        self.check_owner = False  # judged above, on the folder's owner, refusing rather than warning

    def _duedate(self):
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                return gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def do_copy(self, src, dest, log=None):
        """Write what the ledger kept of the chosen hand-in, with its trusted time and receipt."""
        entry, files = self.entries[src]
        os.makedirs(dest, mode=0o750)
        files = entry.installed_files(files)
        for rel, data in files.items():
            target = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(target), mode=0o750, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o640)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
