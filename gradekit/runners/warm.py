"""What a local pool's fork server prepares before the first worker forks.

The fork server (:mod:`gradekit.runners.forkserver`) imports this module at
start-up -- multiprocessing's only hook into it is a list of modules to
import. Importing it loads the grading code, numpy and pytest and, when
``$GRADEKIT_WARM`` says which course, assignment and options the coordinator
is about to grade, builds that :class:`~gradekit.grading.pipeline.Pipeline` up to its
sandbox: the templates loaded and checked, the graders collected. Every
worker forks with all that done, so a pool pays for it once, not once per
worker, and no worker starts before it is ready.

A worker takes the prepared pipeline only if it is for its own course,
assignment and options and the assignment has not changed since (the
version hash of its source, graders and reference); otherwise it builds its
own. A course failure met here is kept and reported by the workers, as if
they had met it.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import threading
from typing import TYPE_CHECKING, Any, cast

from gradekit.course import Course
from gradekit.errors import CourseFailure
from gradekit.grading.options import Options
from gradekit.runners.forkserver import ENV

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.grading.pipeline import Pipeline

_PREPARED: tuple | None = None  # (key, state, Pipeline or None, CourseFailure or None)


def _key(root: str, assignment: str, options: Options) -> tuple:
    return (str(root), assignment, options)


def _options(data: dict) -> Options:
    from gradekit.sandbox.limits import Limits

    limits = data.get("limits")
    return Options(
        **{**data, "limits": Limits(**limits) if limits else None, "stages": tuple(data.get("stages") or ())}
    )


def prepare_from_environment() -> None:
    """Import the grading code and build the pipeline $GRADEKIT_WARM asks for (in the fork
    server, before any worker forks), ending at once if the coordinator ends meanwhile."""
    spec = os.environ.get(ENV)
    with _ending_with_parent(_coordinator(spec)):
        from gradekit.grading import pipeline  # noqa: F401 - what every worker runs
        from gradekit.runners.base import settle_heap

        _prepare(spec)
        settle_heap()  # before the first fork: every worker inherits it settled


def _coordinator(spec: str | None) -> int:
    """The pid of the coordinator that asked for this fork server: named in the request, since
    by the time this runs it may have ended already (and this process been handed to another)."""
    try:
        return int(json.loads(cast(Any, spec))["coordinator"])  # None: a TypeError
    except (TypeError, ValueError, KeyError):
        return os.getppid()


@contextlib.contextmanager
def _ending_with_parent(pid: int):
    """End this process at once if the process that started it (``pid``) ends: a coordinator
    killed while its fork server prepares would otherwise leave it preparing, for nobody, for a
    second or more (afterwards multiprocessing's own loop notices). No thread is left when the
    block ends."""
    try:
        parent = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(0)  # it has ended already
    except (OSError, AttributeError):
        yield
        return
    stop_r, stop_w = os.pipe()

    def watch() -> None:
        if parent in select.select([parent, stop_r], [], [])[0]:
            os._exit(0)

    watcher = threading.Thread(target=watch, name="gradekit-fork-server-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        os.write(stop_w, b"x")
        watcher.join()
        for fd in (parent, stop_r, stop_w):
            os.close(fd)


def _prepare(spec: str | None) -> None:
    global _PREPARED
    from gradekit.grading.pipeline import Pipeline

    if not spec:
        return
    try:
        data = json.loads(spec)
        root, assignment, options = data["root"], data["assignment"], _options(data["options"])
    except (ValueError, KeyError, TypeError):
        return
    key = _key(root, assignment, options)
    try:
        course = Course.load(root)
        state = _state(course, assignment)
    except Exception:  # noqa: BLE001 - the workers build their own and report what they meet
        return
    try:
        _PREPARED = (key, state, Pipeline(course, assignment, options, start_sandbox=False), None)
    except CourseFailure as exc:
        _PREPARED = (key, state, None, exc)
    except Exception:  # noqa: BLE001
        _PREPARED = None


def _state(course: Course, assignment: str) -> tuple:
    """What must not have changed for a prepared pipeline to be used: the course's settings,
    the assignment's version (source, graders, reference, gradekit) and the secret."""
    from gradekit.grading.incremental import assignment_version

    return (course, assignment_version(course, assignment), course.secret())


def prepared(root: str, assignment: str, options: Options) -> Pipeline | None:
    """The pipeline the fork server prepared for this run, if it is still right; raises the
    CourseFailure it met. Called once per worker: a worker takes it over."""
    global _PREPARED
    found, _PREPARED = _PREPARED, None
    if found is None or found[0] != _key(root, assignment, options):
        return None
    _, state, pipeline, failure = found
    try:
        if _state(Course.load(root), assignment) != state:
            return None  # the course changed since the fork server started (tests do that)
    except Exception:  # noqa: BLE001 - the worker builds its own and reports what it meets
        return None
    if failure is not None:
        raise failure
    return pipeline


prepare_from_environment()
