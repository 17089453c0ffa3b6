"""Grading on a real Dask cluster: a scheduler and two workers on loopback.

The grades must be identical to a local run, and a worker killed in the middle
of a task must lose nothing: its submissions are graded again elsewhere.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
import ports

from gradekit.grading.options import Options
from gradekit.service.session import GradingSession
from gradekit.qa.demo import build_course, fill
from gradekit.release.generate import generate
from gradekit.release.generate import write_answer_key

pytestmark = pytest.mark.e2e  # the whole pipeline: `pytest -m "not e2e"` leaves it out

BIN = Path(sys.executable).parent
STUDENTS = ["c1", "c2", "c3", "c4"]


def _port() -> int:
    return ports.free_port()


@pytest.fixture
def cluster():
    port = _port()
    env = dict(os.environ, PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env, start_new_session=True)]
    address = f"tcp://127.0.0.1:{port}"
    workers = []
    for _ in range(2):
        workers.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1",
                                         "--no-dashboard", "--no-nanny"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        env=env, start_new_session=True))
    procs += workers
    from distributed import Client

    with Client(address, timeout="30s") as client:
        client.wait_for_workers(2, timeout=60)
    try:
        yield address, workers
    finally:
        for proc in procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


@pytest.fixture
def course(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADEKIT_SECRET", "cluster-test")
    course = build_course(tmp_path / "course", STUDENTS, Path(__file__).resolve().parents[2])
    generate(course, "self_attention", STUDENTS)
    for i, student in enumerate(STUDENTS):
        write_answer_key(course, "self_attention", student, tmp_path / f"key-{student}")
        nb = nbformat.read(str(tmp_path / f"key-{student}" / "self_attention.ipynb"), as_version=4)
        if i == 1:  # one wrong answer, so the comparison is not all full marks
            fill(nb, {"softmax": "import numpy as np\ndef softmax(x, axis=-1):\n"
                                 "    e = np.exp(x)\n    return e / e.sum(axis=axis, keepdims=True)\n"})
        # a slow cell: the kill below lands while tasks are running
        nb.cells.insert(1, nbformat.v4.new_code_cell("import time\ntime.sleep(1.5)\n"))
        folder = course.submitted_dir(student, "self_attention")
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / "self_attention.ipynb"))
        shutil.copy(tmp_path / f"key-{student}" / "quiz.ipynb", folder)
    return course


def grade_many(course, assignment, students, options, on_result):
    """A class graded in one session, nothing recorded: what autograde grades on."""
    with GradingSession(course, [assignment], options, size=len(students)) as session:
        session.grade_class(assignment, students, on_result, record=False)


def _scores(results):
    return {r.student: [(c.grade_id, c.score) for nb in r.notebooks for c in nb.cells] for r in results}


def test_cluster_grades_equal_local_and_survive_a_dead_worker(course, cluster):
    address, workers = cluster
    local = []
    grade_many(course, "self_attention", STUDENTS, Options(jobs=1, force=True), local.append)

    remote = []
    killer = threading.Timer(2.5, lambda: os.killpg(workers[0].pid, signal.SIGKILL))
    killer.start()
    try:
        grade_many(course, "self_attention", STUDENTS, Options(scheduler=address, force=True), remote.append)
    finally:
        killer.cancel()
    assert workers[0].poll() is not None, "the worker was meant to be killed during the run"
    assert sorted(r.student for r in remote) == sorted(STUDENTS)
    assert all(r.error is None for r in remote), [r.error for r in remote]
    assert _scores(remote) == _scores(local)
    assert _scores(local)["c2"] != _scores(local)["c1"]


def test_unreachable_scheduler_is_one_clear_error(course, monkeypatch):
    from gradekit.errors import GradekitError
    from gradekit.runners import cluster

    monkeypatch.setattr(cluster, "CONNECT", 1.0)   # no scheduler will answer: no need to wait its 10 s
    port = _port()
    started = time.monotonic()
    with pytest.raises(GradekitError, match="cannot reach the Dask scheduler"):
        grade_many(course, "self_attention", STUDENTS, Options(scheduler=f"tcp://127.0.0.1:{port}", force=True),
                   lambda r: None)
    assert time.monotonic() - started < 60


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_cluster_workers_each_claim_a_core_of_their_own(course, cluster):
    """Two Dask workers on one machine: each pins itself (and its sandbox) to a different core."""
    from distributed import Client

    address, _ = cluster
    results = []
    grade_many(course, "self_attention", STUDENTS, Options(scheduler=address, force=True), results.append)
    assert all(r.error is None for r in results)

    def probe():
        import os as _os

        from gradekit.runners.cores import _CLAIMED, claim_core
        before = list(_CLAIMED)  # claimed while grading (if this worker graded anything)
        return before, claim_core(), sorted(_os.sched_getaffinity(0))

    with Client(address, timeout="30s") as client:
        # pinning is per thread: ask on the worker's task thread, where grading runs
        seen = client.gather([client.submit(probe, pure=False, workers=[w])
                              for w in client.scheduler_info()["workers"]])
    assert any(before for before, _, _ in seen), seen            # grading claimed a core
    cores = [core for _, core, _ in seen]
    assert None not in cores and len(set(cores)) == 2, seen        # one each, never the same
    assert all(mask == [core] for _, core, mask in seen), seen    # and the task thread runs there
