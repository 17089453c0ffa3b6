"""The students' side of nbgrader's exchange: each student's own variant fetched, handed in, listed.

nbgrader's exchange hands one ``outbound/<assignment>/`` folder to everybody. gradekit's
classes here replace the parts of it a student's commands run that must know whose variant is
whose; ``nbgrader_config.py`` selects them (``c.ExchangeFactory.*``), so the stock commands --
``nbgrader fetch_assignment``, ``submit``, ``list``, ``fetch_feedback`` -- do the right thing.
The instructor's side is :mod:`gradekit.exchange.filesystem.release` (each student's variant out),
:mod:`gradekit.exchange.filesystem.collect` (hand-ins in, judged by owner and time) and
:mod:`gradekit.service.nbgrader_feedback` (feedback back, through the one delivery).

Who can read what is :mod:`gradekit.exchange.filesystem.layout`: every student's release,
submission and feedback is theirs alone, and the exchange's folders are nobody's to rename or list.

The student id is nbgrader's: ``--student`` (CourseDirectory.student_id) when
given, else the Unix user name (``nbgrader.utils.get_username``, which honours
``$JUPYTERHUB_USER`` for the shared ``jovyan`` account). With real Unix users,
``--student=bob`` does not let alice read bob's folder (the file modes refuse), nor hand in
as bob (the collect class judges by the folder's owner).
"""

from __future__ import annotations

import glob
import os
import shutil

from nbgrader.exchange import ExchangeError
from nbgrader.exchange.default import (
    Exchange,
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeList,
    ExchangeSubmit,
)
from nbgrader.utils import check_mode, get_username

from gradekit.exchange.filesystem import layout
from gradekit.untrusted import is_valid_id


def student_of(coursedir) -> str:
    """The student an exchange command acts for: --student, else the Unix user."""
    student = coursedir.student_id
    if not student or student == "*":
        student = get_username()
    if not is_valid_id(student):
        raise ExchangeError(f"invalid student id {student!r}: use letters, digits and _.@+-")
    return student


def _add_user_write(path: str) -> None:
    """Fetched copies must be the student's to edit, whatever mode the exchange had."""
    for dirname, _, filenames in os.walk(path):
        os.chmod(dirname, os.stat(dirname).st_mode | 0o700)
        for name in filenames:
            full = os.path.join(dirname, name)
            os.chmod(full, os.stat(full).st_mode | 0o600)


class _SafeRoot(Exchange):
    """Refuse an exchange root that anybody may write without the sticky bit: there, any user can
    rename the course folder away and put a fake one in its place (nbgrader's own release makes
    the root 0777; nbgrader's #1225)."""

    def ensure_root(self):
        problem = layout.root_problem(self.root)
        if problem:
            self.fail(problem)
        super().ensure_root()


class GradekitFetchAssignment(_SafeRoot, ExchangeFetchAssignment):
    """Fetch outbound/<assignment>/<me>/ -- my own variant, nobody else's."""

    def init_src(self):
        # nbgrader's checks, except that outbound/<assignment>/ need not be readable (it is 0711)
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        if not self.authenticator.has_access(self.coursedir.student_id, self.coursedir.course_id):
            self.fail("You do not have access to this course.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.outbound_path = os.path.join(self.course_path, "outbound")
        self.src_path = os.path.join(self.outbound_path, self.coursedir.assignment_id)
        if not os.path.isdir(self.src_path):
            self._assignment_not_found(self.src_path, os.path.join(self.outbound_path, "*"))
        self.student = student_of(self.coursedir)
        own = os.path.join(self.src_path, self.student)
        if not os.path.isdir(own):
            self.fail(
                f"{self.coursedir.assignment_id!r} has no notebook for {self.student!r} "
                "(not on the class list when it was released?): ask your instructor"
            )
        if not check_mode(own, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {own}")
        self.src_path = own

    def copy_files(self):
        super().copy_files()
        layout.strip_acls(self.dest_path)  # copytree copied the exchange's ACL onto the student's copy
        _add_user_write(self.dest_path)


class GradekitSubmit(_SafeRoot, ExchangeSubmit):
    """nbgrader's submit: the expected notebooks are the student's own released ones, and the
    submission is the student's and the staff's alone (0770/0640, group staff), not nbgrader's
    0777 that anyone who learns its name may change.

    inbound/ is setgid to the staff group, so what is created in the new folder gets that
    group -- as long as it is created before the folder's own chmod, which drops the setgid bit
    (the student is not in that group): hence mkdir, write the timestamp and the secret, copy
    the notebooks' contents (not their modes or ACLs), then the modes.
    """

    def copy_files(self):
        import secrets

        from nbgrader.utils import ignore_patterns

        self.init_release()
        submission_secret = secrets.token_hex(64)
        dest_path = os.path.join(self.inbound_path, self.assignment_filename)
        cache_path = os.path.join(
            self.cache_path,
            self.assignment_filename.rsplit("+", 1)[0] if self.add_random_string else self.assignment_filename,
        )
        self.log.info("Source: %s", self.src_path)
        self.log.info("Destination: %s", dest_path)
        self.check_filename_diff()
        if self.get_size(self.src_path) > 1000 * self.coursedir.max_dir_size:
            self.fail("Directory size is too big")
        os.mkdir(dest_path, 0o700)  # inherits inbound's group
        for name, text in (("timestamp.txt", self.timestamp), ("submission_secret.txt", submission_secret)):
            with open(os.path.join(dest_path, name), "w") as fh:
                fh.write(text)
        ignore = ignore_patterns(
            exclude=self.coursedir.ignore,
            include=self.coursedir.include,
            max_file_size=self.coursedir.max_file_size,
            log=self.log,
        )
        _copy_contents(self.src_path, dest_path, ignore)
        self.set_perms(dest_path, fileperms=layout.SUBMISSION_FILE, dirperms=layout.SUBMISSION_DIR)
        os.makedirs(self.cache_path, mode=0o700, exist_ok=True)  # the student's own cache, as nbgrader keeps it
        self.do_copy(self.src_path, cache_path)
        for name, text in (("timestamp.txt", self.timestamp), ("submission_secret.txt", submission_secret)):
            with open(os.path.join(cache_path, name), "w") as fh:
                fh.write(text)
        os.chmod(cache_path, 0o700)
        self.log.info("Submitted as: %s %s %s", self.coursedir.course_id, self.coursedir.assignment_id, self.timestamp)

    def init_release(self):
        # nbgrader's checks, except that outbound/<assignment>/ need not be readable (it is 0711)
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.release_path = os.path.join(self.root, self.coursedir.course_id, "outbound", self.coursedir.assignment_id)
        if not os.path.isdir(self.release_path):
            self.fail(f"Assignment not found: {self.release_path}")
        own = os.path.join(self.release_path, student_of(self.coursedir))
        if not check_mode(own, read=True, execute=True):
            self.fail(
                f"No released notebook of {self.coursedir.assignment_id!r} for {student_of(self.coursedir)!r}: {own}"
            )
        self.release_path = own


def _copy_contents(src: str, dest: str, ignore) -> None:
    """``src``'s files into the existing ``dest``: contents only, so new files take dest's group."""
    for dirname, dirnames, filenames in os.walk(src):
        skipped = set(ignore(dirname, dirnames + filenames))
        dirnames[:] = [d for d in dirnames if d not in skipped]
        rel = os.path.relpath(dirname, src)
        for d in dirnames:
            os.mkdir(os.path.join(dest, rel, d), 0o700)
        for f in filenames:
            if f not in skipped:
                shutil.copyfile(os.path.join(dirname, f), os.path.join(dest, rel, f))


class GradekitList(_SafeRoot, ExchangeList):
    """``nbgrader list``: released assignments show the student's own notebooks."""

    def parse_assignments(self):
        if self.inbound or self.cached:
            return super().parse_assignments()
        courses = (
            self.authenticator.get_student_courses(self.coursedir.student_id) if self.coursedir.student_id else None
        )
        student = student_of(self.coursedir)
        assignments = []
        for path in self.assignments:
            info = self.parse_assignment(path)
            if courses is not None and info["course_id"] not in courses:
                continue
            if self.path_includes_course:
                assignment_dir = os.path.join(self.assignment_dir, info["course_id"], info["assignment_id"])
            else:
                assignment_dir = os.path.join(self.assignment_dir, info["assignment_id"])
            own = os.path.join(path, student)
            if os.path.exists(assignment_dir):
                info["status"], info["path"] = "fetched", os.path.abspath(assignment_dir)
            else:
                info["status"] = "released"
                info["path"] = own if check_mode(own, read=True, execute=True) else path
            if self.remove:
                info["status"] = "removed"
            info["notebooks"] = [
                {"notebook_id": os.path.splitext(os.path.basename(nb))[0], "path": os.path.abspath(nb)}
                for nb in sorted(glob.glob(os.path.join(info["path"], "*.ipynb")))
            ]
            assignments.append(info)
        return assignments


class GradekitFetchFeedback(_SafeRoot, ExchangeFetchFeedback):
    """nbgrader's fetch_feedback, reading only this student's submissions from the local cache,
    and able to fetch again and again.

    (The cache is per Unix account; nbgrader reads every cached submission in
    it, whoever it was submitted as. Here only ``<me>+<assignment>+*`` counts.)

    nbgrader copies every cached submission's page again on every fetch with
    ``shutil.copy``, which opens the old copy for writing and copies the mode: a page
    released for one student alone (0400, or 0600 with an ACL) becomes a copy its owner
    cannot overwrite, and every later fetch stops at it with a PermissionError -- the
    second hand-in's feedback never arrives. Here a page already fetched unchanged is
    left alone, and a new one is written to a private temporary file renamed over the
    old copy (a rename needs only the folder to be writable).
    """

    def do_copy(self, src, dest):
        import tempfile

        for notebook_id, timestamp, feedbackpath in self.feedback_files:
            folder = os.path.join(dest, timestamp)
            os.makedirs(folder, mode=0o700, exist_ok=True)
            target = os.path.join(folder, notebook_id + ".html")
            with open(feedbackpath, "rb") as fh:
                data = fh.read()
            try:
                with open(target, "rb") as fh:
                    if fh.read() == data:
                        continue  # fetched before, unchanged
            except OSError:
                pass
            # 0600, the student's; not named .html while it is being written
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".feedback-", suffix=".part")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, target)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
            self.log.info("Fetched feedback: %s", target)

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.outbound_path = self.src_path = os.path.join(self.course_path, "feedback")
        self.cache_path = os.path.join(self.cache, self.coursedir.course_id)
        student = student_of(self.coursedir)
        if not os.path.isdir(self.src_path):
            self._assignment_not_found(self.src_path, os.path.join(self.outbound_path, "*"))
        if not check_mode(self.src_path, execute=True):
            self.fail(f"You don't have execute permissions for the directory: {self.src_path}")
        assignment_id = self.coursedir.assignment_id or "*"
        self.feedback_files = []
        for submission in sorted(glob.glob(os.path.join(self.cache_path, f"{glob.escape(student)}+{assignment_id}+*"))):
            parts = os.path.basename(submission).split("+")
            if len(parts) != 3 or parts[0] != student:
                continue
            _, assignment, timestamp = parts
            secret = layout.read_submission_secret(submission)
            if not secret:  # not handed in through gradekit's submit (it always writes one)
                continue
            for notebook in sorted(glob.glob(os.path.join(submission, "*.ipynb"))):
                notebook_id = os.path.splitext(os.path.basename(notebook))[0]
                path = os.path.join(self.outbound_path, layout.feedback_name(secret, notebook_id))
                if os.path.exists(path):
                    self.feedback_files.append((notebook_id, timestamp, path))
                    self.log.info(
                        "Found feedback for '%s/%s/%s' submitted at %s",
                        self.coursedir.course_id,
                        assignment,
                        notebook_id,
                        timestamp,
                    )
                else:
                    self.log.warning(
                        "Could not find feedback for '%s/%s/%s' submitted at %s",
                        self.coursedir.course_id,
                        assignment,
                        notebook_id,
                        timestamp,
                    )
