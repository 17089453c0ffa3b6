"""nbgrader's release_feedback, gradekit's class: the pages go back the one way every way back takes.

Selected in nbgrader_config.py (``c.ExchangeFactory.release_feedback``), it is what ``nbgrader
release_feedback`` and formgrader's Release run. It gives back what ``gradekit release-feedback``
gives (:func:`gradekit.service.delivery.release_feedback`): every graded student's pages (or those
of ``--student``), written now from their result with the gradebook's final marks, shown as the
assignment's policy shows them -- never the files found in feedback/, which may be the instructor's
whole pages. On the filesystem exchange they go into this step's feedback folder (nbgrader's root,
as given: the course's FilesystemExchange there), on the hub exchange through the service. A page
goes back only for the submission it was graded from, so a resubmission collected after grading
never gets the older one's feedback.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.exchange.default import ExchangeReleaseFeedback


class GradekitReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's release_feedback through gradekit's delivery (see the module's docstring)."""

    _course = None

    def course(self):
        if self._course is None:
            from gradekit.course import Course

            self._course = Course.load(self.coursedir.root)
        return self._course

    def init_src(self):
        pass  # the pages are written from the results, not read from feedback/

    def _on_hub(self) -> bool:
        return str(getattr(self.course().settings, "exchange", "") or "filesystem") == "hub"

    def ensure_root(self):
        if not self._on_hub():  # the hub exchange keeps the pages: no folder of nbgrader's
            super().ensure_root()

    def init_dest(self):
        if self._on_hub():
            self.dest_path = ""
            return
        super().init_dest()

    def copy_files(self):
        from gradekit.errors import GradekitError
        from gradekit.exchange.exchanges import exchange_of
        from gradekit.gradebook import read
        from gradekit.service.delivery import release_feedback

        cd = self.coursedir
        course = self.course()
        # the filesystem exchange: the feedback folder this step was given (nbgrader's root, as given)
        giver = exchange_of(course, here=Path(self.dest_path).parent if self.dest_path else None)
        exclude = set(cd.student_id_exclude.split(",")) if cd.student_id_exclude else set()
        wanted = [cd.student_id] if cd.student_id not in ("", "*") else read.students(course)
        self.released_for: dict[str, list[str]] = {}
        try:
            given = release_feedback(course, cd.assignment_id, [s for s in wanted if s not in exclude], giver)
        except GradekitError as exc:
            self.fail(str(exc))
        finally:
            giver.close()
        for line in given.skipped:
            self.log.warning("%s", line)
        for student in given.students:
            notebooks = sorted(p.stem for p in course.submitted_dir(student, cd.assignment_id).glob("*.ipynb"))
            self.released_for[student] = notebooks
            for notebook_id in notebooks:
                self.log.info(
                    "Released feedback for student '%s' on '%s/%s/%s'",
                    student,
                    cd.course_id,
                    cd.assignment_id,
                    notebook_id,
                )
