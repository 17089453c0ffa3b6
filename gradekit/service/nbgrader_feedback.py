"""nbgrader's release_feedback, gradekit's class: the pages go back the one way every way back takes.

Selected in nbgrader_config.py (``c.ExchangeFactory.release_feedback``), it is what ``nbgrader
release_feedback`` and formgrader's Release run. It gives back through the course's exchange as
:mod:`gradekit.service.delivery` does: on the filesystem exchange into this step's feedback folder
(layout.give_feedback), on the hub exchange through the service.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from nbgrader.exchange.default import ExchangeReleaseFeedback

from gradekit.exchange.filesystem import layout


class _FeedbackFolder:
    """The filesystem exchange's feedback back, into this step's folder (nbgrader's root, as given)."""

    label = "nbgrader exchange"

    def __init__(self, course, folder: Path):
        self.course, self.folder = course, folder

    def give_feedback(self, student: str, assignment: str, submission: Path, pages: dict[str, str]) -> bool:
        return layout.give_feedback(self.course, self.folder, student, submission, pages)

    def close(self) -> None:
        pass


class GradekitReleaseFeedback(ExchangeReleaseFeedback):
    """Release gradekit's feedback/<student>/<assignment>/*.html through the course's exchange.

    The pages ``gradekit feedback`` wrote go back as they are, each to its student alone, as the
    course's exchange gives feedback back (gradekit.service.delivery.give_back): on the filesystem
    exchange as FilesystemExchange.give_feedback does (layout.give_feedback), on the hub exchange
    through the service. A page is released only if it was graded from the submission in
    submitted/ (the timestamp in autograded/.../results.json), so a resubmission collected after
    grading never gets the older submission's feedback.
    """

    def copy_files(self):
        from gradekit.course import Course
        from gradekit.service.delivery import give_back

        cd = self.coursedir
        course = Course.load(cd.root)
        if str(getattr(course.settings, "exchange", "") or "filesystem") == "hub":
            from gradekit.exchange.hub.course import HubExchange

            exchange: HubExchange | _FeedbackFolder = HubExchange(course)
        else:
            exchange = _FeedbackFolder(course, Path(self.dest_path))
        exclude = set(cd.student_id_exclude.split(",")) if cd.student_id_exclude else set()
        self.released_for: dict[str, list[str]] = {}
        try:
            for folder in sorted(glob.glob(self.src_path)):
                student = Path(folder).parent.name
                if student in exclude or not os.path.isdir(folder):
                    continue
                pages = {
                    os.path.splitext(os.path.basename(html))[0]: Path(html).read_text(encoding="utf-8")
                    for html in sorted(glob.glob(os.path.join(folder, "*.html")))
                }
                problem = give_back(course, exchange, student, cd.assignment_id, pages)
                if problem:
                    self.log.warning("%s", problem)
                    continue
                self.released_for[student] = sorted(pages)
                for notebook_id in sorted(pages):
                    self.log.info(
                        "Released feedback for student '%s' on '%s/%s/%s'",
                        student,
                        cd.course_id,
                        cd.assignment_id,
                        notebook_id,
                    )
        finally:
            exchange.close()
