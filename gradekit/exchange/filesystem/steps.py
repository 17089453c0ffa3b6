"""Running nbgrader's exchange steps from gradekit: the filesystem exchange's publish, and the demo's round trip.

Each step is an nbgrader exchange class (gradekit's, :mod:`gradekit.exchange.filesystem.release` and ``.student``,
or nbgrader's own) run on the course's configuration, with overrides; a step
that fails is an :class:`~gradekit.errors.ExchangeFailure` (nbgrader logged why).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from nbgrader.exchange import ExchangeError

from gradekit.course import load_config
from gradekit.errors import ExchangeFailure
from gradekit.exchange.filesystem.release import GradekitReleaseAssignment
from gradekit.exchange.filesystem.student import GradekitFetchAssignment, GradekitSubmit


def run_step(cls, course_root, assignment: str, **overrides):
    """Run one exchange step (a class above or nbgrader's) for the course; return the step object."""
    import logging

    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    cfg = load_config(course_root, **overrides)
    coursedir = CourseDirectory(config=cfg)
    coursedir.root = str(Path(course_root).resolve())
    coursedir.assignment_id = assignment
    step = cls(coursedir=coursedir, authenticator=Authenticator(config=cfg), config=cfg)
    step.log = logging.getLogger("gradekit.exchange.filesystem")
    try:
        step.start()
    except ExchangeError as exc:
        raise ExchangeFailure(
            f"{cls.__name__[len('Gradekit') :] if cls.__name__.startswith('Gradekit') else cls.__name__} failed: {exc}"
        ) from None
    return step


def demo_round_trip(course_dir, assignment: str, students: list[str]) -> int:
    """release -> fetch -> submit -> collect for three simulated students in a temporary exchange."""
    import hashlib

    from nbgrader.exchange.default import ExchangeCollect

    from gradekit.course import Course

    course = Course.load(course_dir)
    work = Path(tempfile.mkdtemp(prefix="gradekit-exchange-"))
    common = {"Exchange.root": str(work / "exchange")}
    (work / "exchange").mkdir()
    (work / "exchange").chmod(0o777)  # what nbgrader's release makes of it
    print(f"\nexchange round trip (nbgrader exchange in {work / 'exchange'}):")
    try:
        step = run_step(GradekitReleaseAssignment, course.root, assignment, **common)
        print(f"  gradekit release: {len(step.sources)} personal variant(s) in outbound/{assignment}/<student>/")
        for student in students:
            me = {
                **common,
                "CourseDirectory.student_id": student,
                "Exchange.assignment_dir": str(work / student),
                "Exchange.cache": str(work / student / ".cache"),
            }
            (work / student).mkdir()
            run_step(GradekitFetchAssignment, course.root, assignment, **me)
            got = sorted((work / student / assignment).glob("*.ipynb"))
            digest = hashlib.sha256(b"".join(p.read_bytes() for p in got)).hexdigest()[:12]
            same = bool(got) and all(
                p.read_bytes() == (course.release_dir(student, assignment) / p.name).read_bytes() for p in got
            )
            print(
                f"  {student}: fetched {', '.join(p.name for p in got)} (sha256 {digest}, "
                f"{'their own variant' if same else 'NOT their variant'})"
            )
            run_step(GradekitSubmit, course.root, assignment, **me)
        step = run_step(
            ExchangeCollect,
            course.root,
            assignment,
            **common,  # simulated students: one Unix user
            **{"CourseDirectory.submitted_directory": "exchange_demo_submitted", "ExchangeCollect.check_owner": False},
        )
        collected = sorted(p.parent.name for p in (course.root / "exchange_demo_submitted").glob(f"*/{assignment}"))
        print(f"  nbgrader collect: {', '.join(collected)} -> exchange_demo_submitted/<student>/{assignment}/")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
