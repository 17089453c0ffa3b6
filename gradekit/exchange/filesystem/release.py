"""Each student's own variant out through nbgrader's exchange: ``gradekit release`` on the filesystem exchange.

nbgrader's release hands one ``outbound/<assignment>/`` folder to everybody; gradekit's class
publishes each student's own variant (release/<student>/<assignment>/) as
``outbound/<assignment>/<student>/``, and ``nbgrader_config.py`` selects it
(``c.ExchangeFactory.release_assignment``). A student's folder is released

* to that student's Unix account when there is one: an ACL entry for them (or, without
  ACLs, chowned to them, which needs root) -- nobody else but the instructor can read it;
* to no one else when there is no such account (one account simulating students, tests,
  the demo): 0700, the separation between simulated students is only the fetch logic;
* with nbgrader's own modes (0755/0644) when ``c.GradekitReleaseAssignment.private = False``.

Who may read what is :mod:`gradekit.exchange.filesystem.layout`.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
from pathlib import Path

from nbgrader.exchange.default import ExchangeReleaseAssignment
from traitlets import Bool

from gradekit.exchange.filesystem import layout


class GradekitReleaseAssignment(ExchangeReleaseAssignment):
    """Publish release/<student>/<assignment>/ as outbound/<assignment>/<student>/, one per student.

    ``--student=ID`` (re)publishes one student's folder and leaves the others alone.
    """

    private = Bool(
        True, help="Per-student folders readable only by that student (see gradekit.exchange.filesystem.nbgrader)."
    ).tag(config=True)

    def ensure_root(self):
        """Create the root 1777 (nbgrader: 0777), or add the sticky bit it lacks; never loosen it."""
        problem = layout.ensure_root(self.root)
        if problem:
            self.fail(problem)

    def init_dest(self):
        """nbgrader's folders, then the layout's modes: inbound/ setgid to the staff and sticky."""
        super().init_dest()
        gid = layout.staff_gid(_setting(self, "staff_group"))
        try:
            if os.stat(self.inbound_path).st_gid != gid:
                os.chown(self.inbound_path, -1, gid)
            os.chmod(self.inbound_path, layout.INBOUND_MODE)
        except PermissionError:
            self.log.warning(
                "Could not set the modes of %s (not its owner): submissions there are not protected "
                "from each other; ask its owner to run `gradekit release` once",
                self.inbound_path,
            )

    def init_src(self):
        cd = self.coursedir
        pattern = cd.format_path(cd.release_directory, "*", cd.assignment_id)
        self.sources = {}
        for path in sorted(glob.glob(pattern)):
            student = Path(path).parent.name
            if os.path.isdir(path) and student not in {".", ""}:
                self.sources[student] = path
        if cd.student_id not in {"", "*"}:
            self.sources = {s: p for s, p in self.sources.items() if s == cd.student_id}
        if not self.sources:
            plain = cd.format_path(cd.release_directory, ".", cd.assignment_id)
            hint = (
                f" ({plain} holds one notebook for everybody: gradekit releases variants)"
                if os.path.isdir(plain)
                else ""
            )
            self.fail(
                f"No per-student variants of {cd.assignment_id!r} in "
                f"{cd.format_path(cd.release_directory, '<student>', cd.assignment_id)}{hint}: "
                f"run `gradekit generate {cd.assignment_id}` first"
            )
        self.src_path = cd.format_path(cd.release_directory, "*", cd.assignment_id)

    def copy_files(self):
        one = self.coursedir.student_id not in {"", "*"}
        if os.path.isdir(self.dest_path) and not one:
            if not self.force:
                self.fail(
                    "Destination already exists, add --force to overwrite: "
                    f"{self.coursedir.course_id} {self.coursedir.assignment_id}"
                )
            self.log.info("Overwriting files: %s %s", self.coursedir.course_id, self.coursedir.assignment_id)
            shutil.rmtree(self.dest_path)
        os.makedirs(self.dest_path, exist_ok=True)
        os.chmod(self.dest_path, 0o711)  # traversable, not listable: no one sees the other folders
        self.protection: dict[str, str] = {}
        for student, src in self.sources.items():
            dest = os.path.join(self.dest_path, student)
            if os.path.exists(dest):
                if one and not self.force:
                    self.fail(
                        f"{student} already has {self.coursedir.assignment_id} in the exchange, "
                        "add --force to overwrite"
                    )
                shutil.rmtree(dest)
            self.do_copy(src, dest)
            self.protection[student] = self.protect(dest, student)
        unreachable = sorted(s for s, how in self.protection.items() if how == "unreachable")
        if unreachable:
            self.log.warning(
                "Could not give %d student(s) their folder (no ACLs on this file system, and chown needs "
                "root): %s. Their folders stay readable only by you: release as root, or use "
                "`gradekit release --zip`.",
                len(unreachable),
                ", ".join(unreachable[:10]),
            )
        self.log.info(
            "Released %d personal variant(s) as: %s %s",
            len(self.sources),
            self.coursedir.course_id,
            self.coursedir.assignment_id,
        )

    def protect(self, path: str, student: str) -> str:
        """Set the modes (and owner) of one student's folder; say which case applied."""
        if not self.private:
            self.set_perms(path, fileperms=0o644, dirperms=0o755)
            return "public"
        try:
            user = pwd.getpwnam(student)
        except KeyError:
            self.set_perms(path, fileperms=0o600, dirperms=0o700)
            return "owner-only"  # no Unix user: only the releasing account can read it
        if user.pw_uid == os.getuid():
            self.set_perms(path, fileperms=0o600, dirperms=0o700)
            return "student"
        if layout.give_tree(path, user.pw_uid, user.pw_gid):
            return "student"
        self.set_perms(path, fileperms=0o600, dirperms=0o700)
        return "unreachable"


def _setting(exchange, name: str, default=None):
    """A ``c.Gradekit`` setting of the course an exchange step runs in (its config is nbgrader_config.py)."""
    try:
        return exchange.config.Gradekit.get(name, default)
    except AttributeError:
        return default
